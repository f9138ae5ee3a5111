// Package probe measures the floor that each configuration's figures are
// judged against, right before the configuration runs: a pinned spin
// ping-pong between two threads (what one cache line takes to cross between
// cores) and the cost of one trivial syscall. It also samples the CPU time
// other processes used during a window, so a result can say when a foreign
// load touched it.
package probe

import (
	"fmt"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
)

// Measure runs the spin probe on cpus (two CPUs, or the same one twice for a
// single-core machine, or Unknown: unpinned) and the syscall probe, taking a
// few milliseconds.
func Measure(cpus [2]int) *results.Probe {
	return &results.Probe{
		SpinOneWayNs: SpinOneWay(cpus, 2000),
		SyscallNs:    SyscallCost(20000),
		CPUs:         cpus,
	}
}

// Unknown is the CPU pair where this process's affinity cannot be read
// (every OS but Linux here): nothing to pin to, and no claim about how many
// CPUs there are. It is NOT "one CPU", although its two entries are equal.
var Unknown = [2]int{-1, -1}

// CPUs returns the pair of CPUs the probe and pinned runs use, and n, the
// number of CPUs this process may run on: n == 1 means the pair is one CPU
// twice (a single-CPU machine or affinity mask). Where the affinity cannot
// be read, it returns Unknown, n == 0 and the reason: placements that pin
// (cross-core, same-core) cannot run there and must be skipped with that
// reason, not taken for "one CPU".
func CPUs() (pair [2]int, n int, err error) {
	cpus, err := osthread.Affinity()
	if err != nil {
		return Unknown, 0, fmt.Errorf("the CPU affinity cannot be read on %s, so threads cannot be pinned: %w", runtime.GOOS, err)
	}
	switch len(cpus) {
	case 0:
		return Unknown, 0, fmt.Errorf("the CPU affinity mask is empty")
	case 1:
		return [2]int{cpus[0], cpus[0]}, 1, nil
	}
	return [2]int{cpus[0], cpus[1]}, len(cpus), nil
}

// DefaultCPUs is CPUs' pair alone: Unknown ({-1, -1}) where the affinity
// cannot be read, which callers must not read as one CPU (use CPUs).
func DefaultCPUs() [2]int {
	pair, _, _ := CPUs()
	return pair
}

// SpinOneWay returns the median one-way latency, in ns, of a busy-wait
// ping-pong between two threads pinned to cpus: the waker stores a
// timestamp and flips a flag; the other side spins on the flag and computes
// now - timestamp. Both directions are pooled.
func SpinOneWay(cpus [2]int, iters int) float64 {
	if cpus[0] >= 0 && cpus[0] == cpus[1] {
		// Two spinners on one CPU only measure the scheduler's slice.
		return -1
	}
	// Two spinners need a P each (plus one for the caller): with fewer,
	// every turn would wait for the scheduler's 10 ms preemption tick.
	if runtime.GOMAXPROCS(0) < 3 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	}
	var turn atomic.Int64 // even: side 0 may go, odd: side 1
	var stamp atomic.Int64
	base := time.Now()
	samples := make([]int64, 2*iters)
	done := make(chan struct{}, 2)
	side := func(me int) {
		if cpus[me] >= 0 {
			if err := osthread.Pin(cpus[me]); err != nil {
				done <- struct{}{}
				return
			}
		}
		for i := 0; i < iters; i++ {
			want := int64(2*i + me)
			for turn.Load() != want {
			}
			if want > 0 {
				samples[want-1] = int64(time.Since(base)) - stamp.Load()
			}
			stamp.Store(int64(time.Since(base)))
			turn.Store(want + 1)
		}
		done <- struct{}{}
	}
	// Each side pins its own thread; osthread.Go retires the thread
	// afterwards so the affinity never leaks into the runtime's pool.
	osthread.Go(func() { side(0) })
	osthread.Go(func() { side(1) })
	<-done
	<-done
	s := samples[:2*iters-1]
	slices.Sort(s)
	return float64(s[len(s)/2])
}

// MinForeignTicks is the shortest foreign-load window, in clock ticks over
// all CPUs, whose share is reported: the share is counted in whole ticks
// of the other processes' CPU time, so its resolution is one tick over the
// window, and it must resolve half of driver.ForeignNoisy's 5%: 40 ticks,
// 0.2 s on two CPUs at Linux's 100 ticks a second. Shorter windows have
// Fraction -1 (not measured) and their WindowTicks.
const MinForeignTicks = 40
