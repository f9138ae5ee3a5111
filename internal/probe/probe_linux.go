package probe

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/results"
)

// SyscallCost returns the ns one getppid costs through unix.Syscall (the
// scheduler-aware entry every blocking parker uses).
func SyscallCost(n int) float64 {
	best := time.Duration(1 << 62)
	for r := 0; r < 3; r++ {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			unix.Syscall(unix.SYS_GETPPID, 0, 0, 0)
		}
		if d := time.Since(t0); d < best {
			best = d
		}
	}
	return float64(best) / float64(n)
}

// Foreign samples, over a window, the CPU time of every other process
// (the sum over /proc/PID/stat of utime+stime, this process left out)
// against all CPU time (/proc/stat, every CPU).
//
// Why not /proc/stat's busy time minus this process's own: the two are
// accounted differently (/proc/stat's idle comes from the nohz idle
// clock, a process's times from its ticks and context switches), and on a
// KVM guest running futex ping-pongs they disagree by a fifth of the
// window in either direction: a quiet machine read as "other processes
// used 20-25% of the CPU" (docs/findings.md). Summing the other processes
// compares like with like, and counts neither this process's interrupts
// (irq, softirq: the wakes it sends) nor the host's steal as another
// process. A process that exits inside the window is missed (its time
// goes to its parent's cutime, not read here): the fraction errs low.
type Foreign struct {
	total0 float64
	others map[int]float64
	ok     bool
}

// StartForeign starts a window.
func StartForeign() *Foreign {
	f := &Foreign{}
	_, f.total0, f.ok = systemTicks()
	if f.ok {
		f.others, f.ok = otherTicks()
	}
	return f
}

// Stop ends the window and returns the fraction of all CPU time that other
// processes used in it (SameCPUFraction set to -1: not measured here).
func (f *Foreign) Stop() *results.Foreign {
	out := &results.Foreign{Fraction: -1, SameCPUFraction: -1}
	_, total1, ok := systemTicks()
	others, ok2 := otherTicks()
	if !f.ok || !ok || !ok2 || total1 <= f.total0 {
		return out
	}
	out.WindowTicks = total1 - f.total0
	if out.WindowTicks < MinForeignTicks {
		// Too short to measure: a window of a few ticks reads 0% or
		// 50% whatever ran (a sub-millisecond selfwake window read
		// "other processes used 50%" on an idle machine).
		return out
	}
	foreign := 0.0
	for pid, t1 := range others {
		// A pid new in the window ran all of its time in it (a reused
		// pid's earlier owner exited: counted from 0 all the same).
		if d := t1 - f.others[pid]; d > 0 {
			foreign += d
		}
	}
	out.Fraction = min(1, foreign/(total1-f.total0))
	return out
}

// otherTicks returns utime+stime in clock ticks of every process but this
// one, by pid.
func otherTicks() (map[int]float64, bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, false
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, false
	}
	self := os.Getpid()
	m := make(map[int]float64, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue // exited since the listing
		}
		if t, ok := statTicks(b); ok {
			m[pid] = t
		}
	}
	return m, true
}

// systemTicks returns busy and total jiffies summed over all CPUs.
func systemTicks() (busy, total float64, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[0] != "cpu" {
			continue
		}
		// user nice system idle iowait irq softirq steal guest guest_nice
		for i, s := range f[1:] {
			if i >= 8 { // guest time is already counted in user
				break
			}
			v, _ := strconv.ParseFloat(s, 64)
			total += v
			if i != 3 && i != 4 { // idle, iowait
				busy += v
			}
		}
		return busy, total, true
	}
	return 0, 0, false
}

// statTicks returns utime+stime in clock ticks from a /proc/PID/stat.
func statTicks(b []byte) (float64, bool) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	// After ')': state(0) ppid(1) ... utime(11) stime(12)
	if len(f) < 13 {
		return 0, false
	}
	u, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return u + st, true
}
