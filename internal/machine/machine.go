// Package machine describes the machine a run happens on, for the result
// file: what is needed to tell whether two runs are comparable.
package machine

import (
	"os"
	"runtime"

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
	m.Slug = results.Slug(m)
	return m
}
