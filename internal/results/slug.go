package results

import (
	"regexp"
	"strconv"
	"strings"
)

// Slug names a machine class, the directory under results/: what makes two
// machines the same kind of host for wake latency, and nothing that only
// decorates the CPU string.
//
//		<os>-<arch>-<N>cpu[-<vendor>][-<name>][-f<family>m<model>][-<hypervisor>]
//
//	  - N: the logical CPUs (vCPUs in a VM).
//	  - vendor: from cpu_vendor (GenuineIntel -> intel, AuthenticAMD -> amd,
//	    ...), else the CPU string's first word when it is a vendor's name.
//	  - name: the CPU string (cpu_model) lower-cased without what varies
//	    within one flavour: the vendor's name, (R) and (TM), "CPU",
//	    "Processor", the clock ("@ 2.80GHz"), the core count ("64-Core"),
//	    integrated graphics ("with Radeon Graphics"); at most 32 characters.
//	  - family and model: the x86 CPUID family and model numbers when the
//	    result records them (cpu_family, cpu_model_number): a hypervisor may
//	    hide the marketing name ("Intel(R) Xeon(R) Processor") but not these.
//	  - hypervisor: the virtualization without a container marker (kvm, vm,
//	    microsoft, ...); bare metal ("none") adds nothing.
//
// So "Intel(R) Xeon(R) Processor @ 2.80GHz" and "Intel(R) Xeon(R)
// Processor" with family 6 model 167, both 2 vCPUs under KVM, are
// linux-amd64-2cpu-intel-xeon-vm and linux-amd64-2cpu-intel-xeon-f6m167-vm:
// one class (SameClass), the first recorded before family and model were.
func Slug(m Machine) string {
	parts := []string{m.OS, m.Arch, strconv.Itoa(m.LogicalCPUs) + "cpu"}
	vendor, name := cpuName(m)
	if vendor != "" {
		parts = append(parts, vendor)
	}
	if name != "" {
		parts = append(parts, name)
	}
	if m.CPUFamily > 0 || m.CPUModelNumber > 0 {
		parts = append(parts, "f"+strconv.Itoa(m.CPUFamily)+"m"+strconv.Itoa(m.CPUModelNumber))
	}
	// The hypervisor is part of the class (a VM's wakes cost more than bare
	// metal's); a container marker ("+docker") is not.
	virt, _, _ := strings.Cut(m.Virtualization, "+")
	if virt != "" && virt != "none" {
		parts = append(parts, slugPart(virt))
	}
	return strings.Join(parts, "-")
}

var (
	nonSlug = regexp.MustCompile(`[^a-z0-9]+`)
	// decoration is what varies within one CPU flavour, or says nothing.
	decoration = regexp.MustCompile(`\(r\)|\(tm\)|@\s*[0-9.]+\s*[gm]hz|\b[0-9]+[- ]core\b|\b(with|w/) radeon.*$|\bcpu\b|\bprocessor\b`)
	vendorIDs  = map[string]string{"genuineintel": "intel", "authenticamd": "amd", "hygongenuine": "hygon", "centaurhauls": "centaur", "shanghai": "zhaoxin"}
	vendors    = []string{"intel", "amd", "arm", "apple", "ampere", "hygon", "zhaoxin", "qualcomm", "nvidia", "hisilicon", "broadcom", "cavium", "fujitsu"}
)

func slugPart(s string) string {
	return strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// cpuName splits the CPU description into a vendor and a name without
// decoration (Slug).
func cpuName(m Machine) (vendor, name string) {
	vendor = vendorIDs[strings.ToLower(strings.TrimSpace(m.CPUVendor))]
	model := decoration.ReplaceAllString(strings.ToLower(m.CPUModel), " ")
	words := strings.Fields(nonSlug.ReplaceAllString(model, " "))
	if len(words) > 0 {
		for _, v := range vendors {
			if words[0] == v {
				if vendor == "" {
					vendor = v
				}
				if vendor == v {
					words = words[1:]
				}
				break
			}
		}
	}
	name = strings.Join(words, "-")
	if len(name) > 32 {
		name = strings.Trim(name[:32], "-")
	}
	return vendor, name
}

// SameClass reports whether two machines are the same machine class, and
// why: the same slug (recomputed from the machine's fields, so a file
// recorded under an older slug rule still finds its class), or the same
// slug but for the family and model, which one of them does not record
// (results written before they were).
func SameClass(a, b Machine) (same bool, why string) {
	sa, sb := Slug(a), Slug(b)
	if sa == sb {
		return true, "same machine class " + sa
	}
	hasA, hasB := a.CPUFamily > 0 || a.CPUModelNumber > 0, b.CPUFamily > 0 || b.CPUModelNumber > 0
	if hasA != hasB {
		strip := func(m Machine) Machine { m.CPUFamily, m.CPUModelNumber = 0, 0; return m }
		if Slug(strip(a)) == Slug(strip(b)) {
			return true, "same machine class by CPU name (" + Slug(strip(a)) + "); one side does not record the CPU family and model"
		}
	}
	return false, "different machine classes: " + sa + " and " + sb
}
