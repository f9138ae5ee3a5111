// Package machine describes the machine a run happens on, for the result
// file: what is needed to tell whether two runs are comparable.
package machine

import (
	"os"
	"regexp"
	"runtime"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// Describe reads the machine's description. Fields that cannot be read on
// this OS are left empty.
func Describe() results.Machine {
	m := results.Machine{
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		LogicalCPUs: runtime.NumCPU(),
		GoVersion:   runtime.Version(),
	}
	m.Hostname, _ = os.Hostname()
	describeOS(&m)
	describeClock(&m)
	m.Slug = Slug(m)
	return m
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

// Slug names a machine class for results/<slug>/: OS, arch, logical CPUs
// and a shortened CPU model, so the same kind of machine maps to one
// directory whatever its hostname.
func Slug(m results.Machine) string {
	model := strings.ToLower(m.CPUModel)
	for _, drop := range []string{"(r)", "(tm)", "cpu", "processor", "@"} {
		model = strings.ReplaceAll(model, drop, " ")
	}
	model = strings.Trim(nonSlug.ReplaceAllString(model, "-"), "-")
	if len(model) > 32 {
		model = strings.Trim(model[:32], "-")
	}
	parts := []string{m.OS, m.Arch, itoa(m.LogicalCPUs) + "cpu"}
	if model != "" {
		parts = append(parts, model)
	}
	// The hypervisor is part of the class (a VM's wakes cost more than bare
	// metal's); a container marker ("+docker") is not.
	virt, _, _ := strings.Cut(m.Virtualization, "+")
	if virt != "" && virt != "none" {
		parts = append(parts, strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(virt), "-"), "-"))
	}
	return strings.Join(parts, "-")
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
