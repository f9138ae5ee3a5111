package inversion

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/osthread"
)

// host is where the run goes: the CPU the three threads share, the
// watchdog's CPU, and the RT throttling read at plan time.
type host struct {
	cpu, watchdogCPU int
	rtRuntimeUs      int64 // kernel.sched_rt_runtime_us (-1: no throttling)
	rtPeriodUs       int64
	forced           []string // the refusals --force overrode
}

// userHZ is /proc/stat's tick: USER_HZ, 100 on every Linux ABI Go runs on.
const userHZ = 100

// cpuSteal is the steal time of CPU cpu so far (what the hypervisor took
// from this vCPU), from /proc/stat; ok false if it cannot be read.
func cpuSteal(cpu int) (ns int64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	return stealFromStat(string(b), cpu)
}

// stealFromStat reads CPU cpu's steal (the 8th figure of its "cpuN" line:
// user nice system idle iowait irq softirq steal, in USER_HZ ticks) from a
// /proc/stat text, in ns.
func stealFromStat(stat string, cpu int) (int64, bool) {
	name := "cpu" + strconv.Itoa(cpu)
	for _, line := range strings.Split(stat, "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != name {
			continue
		}
		ticks, err := strconv.ParseInt(f[8], 10, 64)
		if err != nil || ticks < 0 {
			return 0, false
		}
		return ticks * (1e9 / userHZ), true
	}
	return 0, false
}

// capSysNice is CAP_SYS_NICE's bit in /proc/self/status CapEff.
const capSysNice = 23

// privilege says why this process cannot set SCHED_FIFO at PrioHigh ("" if
// it can): sched_setscheduler(2) needs CAP_SYS_NICE (root has it unless a
// container dropped it) or an RLIMIT_RTPRIO of at least the priority.
func privilege() string {
	capable := false
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
				if caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil {
					capable = caps&(1<<capSysNice) != 0
				}
			}
		}
	}
	var rl unix.Rlimit
	rtprio := uint64(0)
	if unix.Getrlimit(unix.RLIMIT_RTPRIO, &rl) == nil {
		rtprio = rl.Cur
	}
	if capable || rtprio >= PrioHigh {
		return ""
	}
	who := "not root"
	if os.Geteuid() == 0 {
		who = "root without CAP_SYS_NICE (a container that dropped it?)"
	}
	return fmt.Sprintf("setting SCHED_FIFO needs CAP_SYS_NICE or RLIMIT_RTPRIO >= %d, and this process has neither (%s, no CAP_SYS_NICE, RLIMIT_RTPRIO %d); "+
		"to fix: run as root, or `sudo setcap cap_sys_nice+ep $(command -v parkbench)`, or raise the limit (`ulimit -r %d`, or rtprio in /etc/security/limits.conf)",
		PrioHigh, who, rtprio, PrioHigh)
}

func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// survey reads the CPUs and the RT throttling, and says what a run without
// force would refuse (nil when nothing).
func survey() (host, []string, error) {
	var h host
	cpus, err := osthread.Affinity()
	if err != nil {
		return h, nil, fmt.Errorf("reading the CPU affinity: %w", err)
	}
	h.rtRuntimeUs, err = readInt("/proc/sys/kernel/sched_rt_runtime_us")
	if err != nil {
		return h, nil, fmt.Errorf("reading kernel.sched_rt_runtime_us: %w", err)
	}
	h.rtPeriodUs, _ = readInt("/proc/sys/kernel/sched_rt_period_us")
	var refuse []string
	if len(cpus) < 2 {
		refuse = append(refuse, fmt.Sprintf("only %d usable CPU: the watchdog needs a CPU of its own, away from the RT threads", len(cpus)))
		h.cpu, h.watchdogCPU = cpus[0], cpus[0]
	} else {
		// The RT threads take the last usable CPU, the watchdog the first.
		h.cpu, h.watchdogCPU = cpus[len(cpus)-1], cpus[0]
	}
	if h.rtRuntimeUs < 0 {
		refuse = append(refuse, "RT throttling is off (kernel.sched_rt_runtime_us = -1): nothing would stop a runaway RT thread from owning its CPU")
	}
	return h, refuse, nil
}

// hostWhy says why the experiment does not run here ("" when it does).
func hostWhy(force bool) string {
	if w := privilege(); w != "" {
		return w
	}
	_, refuse, err := survey()
	if err != nil {
		return err.Error()
	}
	if len(refuse) > 0 && !force {
		return strings.Join(refuse, "; ") + " (--force runs anyway)"
	}
	return ""
}

// checkHost is plan's check that the experiment may run here.
func checkHost(force bool) (host, error) {
	if w := privilege(); w != "" {
		return host{}, driver.Bad("host", "inversion cannot run here: %s", w)
	}
	h, refuse, err := survey()
	if err != nil {
		return h, driver.Bad("host", "inversion cannot run here: %v", err)
	}
	if len(refuse) > 0 {
		if !force {
			return h, driver.Bad("Force", "refusing to run: %s; give --force to run anyway", strings.Join(refuse, "; "))
		}
		h.forced = refuse
	}
	return h, nil
}
