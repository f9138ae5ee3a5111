package machine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

func fakeRoot(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for p, s := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const x86cpuinfo = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 79\nmodel name\t: Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz\nflags\t\t: fpu vme sse2 hypervisor lahf_lm\n\nprocessor\t: 1\n"

func TestDescribeFS(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		model   string
		virt    string
		gov, cs string
	}{
		{"azure x86", map[string]string{
			"proc/cpuinfo": x86cpuinfo, "sys/class/dmi/id/sys_vendor": "Microsoft Corporation\n", "sys/class/dmi/id/product_name": "Virtual Machine\n",
			"sys/devices/system/clocksource/clocksource0/current_clocksource": "hyperv_clocksource_tsc_page\n", "proc/loadavg": "0.52 0.58 0.59 1/345 12345\n",
		}, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", "microsoft", "", "hyperv_clocksource_tsc_page"},
		{"kvm in docker", map[string]string{
			"proc/cpuinfo": x86cpuinfo, "sys/class/dmi/id/sys_vendor": "QEMU", "sys/class/dmi/id/product_name": "Standard PC (Q35 + ICH9, 2009)", "sys/class/dmi/id/bios_vendor": "SeaBIOS", ".dockerenv": "",
		}, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", "qemu+docker", "", ""},
		{"xen", map[string]string{"proc/cpuinfo": x86cpuinfo, "sys/hypervisor/type": "xen\n"}, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", "xen", "", ""},
		{"flag only", map[string]string{"proc/cpuinfo": x86cpuinfo}, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", "vm", "", ""},
		{"bare arm64", map[string]string{
			"proc/cpuinfo": "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd49\n",
			"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "performance\n",
		}, "ARM Neoverse-N2", "none", "performance", ""},
		{"arm64 kvm device tree", map[string]string{
			"proc/cpuinfo": "CPU implementer\t: 0xc0\nCPU part\t: 0xfff\n", "proc/device-tree/hypervisor/compatible": "linux,kvm\x00",
		}, "Ampere part 0xfff", "kvm", "", ""},
		{"wsl", map[string]string{"proc/cpuinfo": x86cpuinfo, "proc/sys/kernel/osrelease": "5.15.90.1-microsoft-standard-WSL2"}, "Intel(R) Xeon(R) CPU E5-2673 v4 @ 2.30GHz", "wsl", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var m results.Machine
			describeFS(&m, fakeRoot(t, c.files))
			if m.CPUModel != c.model || m.Virtualization != c.virt || m.Governor != c.gov || m.ClockSource != c.cs {
				t.Fatalf("got model %q virt %q governor %q clock %q; want %q %q %q %q", m.CPUModel, m.Virtualization, m.Governor, m.ClockSource, c.model, c.virt, c.gov, c.cs)
			}
			if c.name == "azure x86" && m.LoadAvg != [3]float64{0.52, 0.58, 0.59} {
				t.Fatalf("load %v", m.LoadAvg)
			}
			if s := results.Slug(m); strings.Contains(s, "+") {
				t.Fatalf("slug %q", s)
			}
			if strings.HasPrefix(c.model, "Intel") && (m.CPUVendor != "GenuineIntel" || m.CPUFamily != 6 || m.CPUModelNumber != 79) {
				t.Fatalf("CPUID vendor %q family %d model %d, want GenuineIntel 6 79", m.CPUVendor, m.CPUFamily, m.CPUModelNumber)
			}
		})
	}
}
