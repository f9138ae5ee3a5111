package machine

import (
	"bufio"
	"os"
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
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k = strings.TrimSpace(k)
			if k == "model name" || k == "Model" || k == "cpu model" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
			if k == "flags" && strings.Contains(v, " hypervisor") && m.Virtualization == "" {
				m.Virtualization = "vm"
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"); err == nil {
		m.Governor = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/sys/devices/system/clocksource/clocksource0/current_clocksource"); err == nil {
		m.ClockSource = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		for i := 0; i < 3 && i < len(f); i++ {
			m.LoadAvg[i], _ = strconv.ParseFloat(f[i], 64)
		}
	}
	if m.Virtualization == "" {
		if b, err := os.ReadFile("/proc/cpuinfo"); err == nil && strings.Contains(string(b), " hypervisor") {
			m.Virtualization = "vm"
		}
	}
	if b, err := os.ReadFile("/sys/class/dmi/id/sys_vendor"); err == nil && m.Virtualization == "vm" {
		if v := strings.TrimSpace(string(b)); v != "" {
			m.Virtualization = v
		}
	}
}
