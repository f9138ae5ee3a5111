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

// Foreign samples CPU time from /proc/stat (all CPUs) against this process's
// own (/proc/self/stat) over a window.
type Foreign struct {
	busy0, total0, self0 float64
	ok                   bool
}

// StartForeign starts a window.
func StartForeign() *Foreign {
	f := &Foreign{}
	f.busy0, f.total0, f.ok = systemTicks()
	var ok2 bool
	f.self0, ok2 = selfTicks()
	f.ok = f.ok && ok2
	return f
}

// Stop ends the window and returns the fraction of all CPU time that other
// processes used in it (SameCPUFraction set to -1: not measured here).
func (f *Foreign) Stop() *results.Foreign {
	out := &results.Foreign{Fraction: -1, SameCPUFraction: -1}
	busy1, total1, ok := systemTicks()
	self1, ok2 := selfTicks()
	if !f.ok || !ok || !ok2 || total1 <= f.total0 {
		return out
	}
	foreign := (busy1 - f.busy0) - (self1 - f.self0)
	if foreign < 0 {
		foreign = 0
	}
	out.Fraction = foreign / (total1 - f.total0)
	return out
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

// selfTicks returns this process's utime+stime in jiffies.
func selfTicks() (float64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
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
