package machine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/results"
)

func describeOS(m *results.Machine) {
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.Kernel = unix.ByteSliceToString(u.Release[:])
	}
	m.FutexHash, m.FutexHashSlots = FutexHash()
	describeFS(m, "/")
}

// describeFS fills what /proc and /sys under root tell (root is "/" except
// in tests, which lay out a fake tree).
func describeFS(m *results.Machine, root string) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	cpuinfo := read("proc/cpuinfo")
	m.CPUModel = cpuModel(cpuinfo, read)
	m.CPUVendor, m.CPUFamily, m.CPUModelNumber = cpuID(cpuinfo)
	m.Governor = read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	m.ClockSource = read("sys/devices/system/clocksource/clocksource0/current_clocksource")
	if f := strings.Fields(read("proc/loadavg")); len(f) >= 3 {
		for i := range 3 {
			m.LoadAvg[i], _ = strconv.ParseFloat(f[i], 64)
		}
	}
	m.Virtualization = virtualization(cpuinfo, read, func(p string) bool {
		_, err := os.Stat(filepath.Join(root, p))
		return err == nil
	})
}

// cpuModel reads the CPU model: x86's "model name", other architectures'
// "Model"/"cpu model"/"Hardware", or, on arm64 (whose cpuinfo has none), the
// implementer and part numbers mapped to a core name, else the device tree.
func cpuModel(cpuinfo string, read func(string) string) string {
	var implementer, part string
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "model name", "Model", "cpu model", "cpu", "Hardware":
			if v != "" {
				return v
			}
		case "CPU implementer":
			if implementer == "" {
				implementer = v
			}
		case "CPU part":
			if part == "" {
				part = v
			}
		}
	}
	if implementer != "" {
		if name, ok := armCores[implementer+"/"+part]; ok {
			return name
		}
		vendor := armVendors[implementer]
		if vendor == "" {
			vendor = "implementer " + implementer
		}
		return vendor + " part " + part
	}
	if s := strings.Trim(read("proc/device-tree/model"), "\x00"); s != "" {
		return s
	}
	return ""
}

// cpuID reads x86's CPUID vendor, family and model numbers from the first
// processor's block (zero values elsewhere: arm64 has implementer and part,
// which cpuModel turns into the core's name).
func cpuID(cpuinfo string) (vendor string, family, model int) {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" && vendor != "" {
				break // end of the first processor's block
			}
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "vendor_id":
			vendor = v
		case "cpu family":
			family, _ = strconv.Atoi(v)
		case "model":
			model, _ = strconv.Atoi(v)
		}
	}
	return vendor, family, model
}

var armVendors = map[string]string{"0x41": "ARM", "0x42": "Broadcom", "0x43": "Cavium", "0x46": "Fujitsu", "0x48": "HiSilicon", "0x4e": "NVIDIA", "0x50": "APM", "0x51": "Qualcomm", "0x61": "Apple", "0xc0": "Ampere"}

var armCores = map[string]string{
	"0x41/0xd03": "ARM Cortex-A53", "0x41/0xd07": "ARM Cortex-A57", "0x41/0xd08": "ARM Cortex-A72",
	"0x41/0xd0b": "ARM Cortex-A76", "0x41/0xd0c": "ARM Neoverse-N1", "0x41/0xd40": "ARM Neoverse-V1",
	"0x41/0xd49": "ARM Neoverse-N2", "0x41/0xd4f": "ARM Neoverse-V2", "0x41/0xd8e": "ARM Neoverse-N3",
	"0x41/0xd84": "ARM Neoverse-V3", "0xc0/0xac3": "Ampere-1", "0xc0/0xac4": "Ampere-1a",
	"0x48/0xd01": "HiSilicon TaiShan-v110", "0x50/0x000": "APM X-Gene",
}

// virtualization detects, without running anything, what systemd-detect-virt
// would: the hypervisor from /sys/hypervisor, the DMI strings, the device
// tree or the cpuinfo "hypervisor" flag ("vm" when only that is known),
// WSL from the kernel release; and a container from its marker files,
// appended as "+docker" etc. Bare metal gives "none".
func virtualization(cpuinfo string, read func(string) string, exists func(string) bool) string {
	vm := ""
	if t := read("sys/hypervisor/type"); t != "" {
		vm = strings.ToLower(t) // "xen"
	}
	if vm == "" {
		dmi := strings.ToLower(strings.Join([]string{read("sys/class/dmi/id/sys_vendor"), read("sys/class/dmi/id/product_name"), read("sys/class/dmi/id/board_vendor"), read("sys/class/dmi/id/bios_vendor")}, " | "))
		for _, c := range []struct{ needle, name string }{
			{"kvm", "kvm"}, {"qemu", "qemu"}, {"vmware", "vmware"}, {"virtualbox", "oracle"}, {"innotek", "oracle"},
			{"xen", "xen"}, {"bochs", "bochs"}, {"parallels", "parallels"}, {"bhyve", "bhyve"},
			{"amazon ec2", "amazon"}, {"google compute engine", "google"}, {"openstack", "kvm"},
			{"microsoft corporation | virtual machine", "microsoft"}, {"apple virtualization", "apple"},
		} {
			if strings.Contains(dmi, c.needle) {
				vm = c.name
				break
			}
		}
	}
	if vm == "" {
		if c := strings.ToLower(read("proc/device-tree/hypervisor/compatible")); c != "" {
			switch {
			case strings.Contains(c, "kvm"):
				vm = "kvm"
			case strings.Contains(c, "xen"):
				vm = "xen"
			default:
				vm = "vm"
			}
		}
	}
	if vm == "" && hasFlag(cpuinfo, "hypervisor") {
		vm = "vm"
	}
	if r := strings.ToLower(read("proc/sys/kernel/osrelease")); strings.Contains(r, "microsoft") {
		vm = "wsl"
	}
	if vm == "" {
		vm = "none"
	}
	switch {
	case exists(".dockerenv"):
		vm += "+docker"
	case exists("run/.containerenv"):
		vm += "+podman"
	case exists("proc/vz") && !exists("proc/bc"):
		vm += "+openvz"
	}
	return vm
}

func hasFlag(cpuinfo, flag string) bool {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" {
			for _, f := range strings.Fields(v) {
				if f == flag {
					return true
				}
			}
			return false
		}
	}
	return false
}
