package lock

// This file holds the two clocks the loop reads: the monotonic clock and
// process CPU time.

import (
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
)

// nanotime is the experiments' monotonic clock (internal/monoclock): on
// Linux the vDSO clock_gettime(CLOCK_MONOTONIC) the C floor reads, on
// Windows QueryPerformanceCounter.
func nanotime() int64 { return monoclock.Nanotime() }

// processCPUNs is this process's user+system CPU time in ns, -1 where the
// OS has no getrusage.
func processCPUNs() int64 {
	ru, err := osthread.ProcessUsage()
	if err != nil {
		return -1
	}
	return ru.UserNs + ru.SysNs
}
