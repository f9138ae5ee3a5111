// Package probe measures the floor that each configuration's figures are
// judged against, right before the configuration runs: a pinned spin
// ping-pong between two threads (what one cache line takes to cross between
// cores) and the cost of one trivial syscall. It also samples the CPU time
// other processes used during a window, so a result can say when a foreign
// load touched it.
package probe

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
)

// Measure runs the spin probe on cpus (two CPUs, or the same one twice for a
// single-core machine) and the syscall probe, taking a few milliseconds.
func Measure(cpus [2]int) *results.Probe {
	return &results.Probe{
		SpinOneWayNs: SpinOneWay(cpus, 2000),
		SyscallNs:    SyscallCost(20000),
		CPUs:         cpus,
	}
}

// DefaultCPUs returns the pair of CPUs the probe and cross-core runs use.
func DefaultCPUs() [2]int {
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		return [2]int{-1, -1}
	}
	if len(cpus) == 1 {
		return [2]int{cpus[0], cpus[0]}
	}
	return [2]int{cpus[0], cpus[1]}
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
