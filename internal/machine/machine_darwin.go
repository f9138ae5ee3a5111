package machine

import (
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/results"
)

// describeOS reads the CPU model, the kernel release and the load averages
// through sysctl (no cgo, no exec). kern.hv_vmm_present says whether macOS
// runs under a hypervisor (hosted CI runners do).
func describeOS(m *results.Machine) {
	if s, err := unix.Sysctl("machdep.cpu.brand_string"); err == nil {
		m.CPUModel = strings.TrimSpace(s)
	}
	// Intel Macs: CPUID vendor, family and model (part of the class).
	if s, err := unix.Sysctl("machdep.cpu.vendor"); err == nil {
		m.CPUVendor = strings.TrimSpace(s)
	}
	if v, err := unix.SysctlUint32("machdep.cpu.family"); err == nil {
		m.CPUFamily = int(v)
	}
	if v, err := unix.SysctlUint32("machdep.cpu.model"); err == nil {
		m.CPUModelNumber = int(v)
	}
	if s, err := unix.Sysctl("kern.osrelease"); err == nil {
		m.Kernel = s
	}
	if v, err := unix.SysctlUint32("kern.hv_vmm_present"); err == nil {
		if v != 0 {
			m.Virtualization = "vm"
		} else {
			m.Virtualization = "none"
		}
	}
	// vm.loadavg is struct loadavg { fixpt_t ldavg[3]; long fscale; }: three
	// uint32 at 0, 4, 8, then (64-bit alignment) an int64 scale at 16.
	if b, err := unix.SysctlRaw("vm.loadavg"); err == nil && len(b) >= 24 {
		if scale := float64(le64(b[16:24])); scale > 0 {
			for i := 0; i < 3; i++ {
				m.LoadAvg[i] = float64(le32(b[4*i:4*i+4])) / scale
			}
		}
	}
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func le64(b []byte) uint64 { return uint64(le32(b[:4])) | uint64(le32(b[4:8]))<<32 }
