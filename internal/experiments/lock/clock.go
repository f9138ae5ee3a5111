package lock

// This file holds the two clocks the loop reads: the monotonic clock and
// process CPU time.

import (
	_ "unsafe" // for go:linkname

	"github.com/parkbench/parkbench/internal/osthread"
)

// nanotime is the runtime's monotonic clock: one vDSO
// clock_gettime(CLOCK_MONOTONIC), what the C floor reads. runtime.nanotime
// is one of the symbols the Go team keeps linkname-able on purpose.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// processCPUNs is this process's user+system CPU time in ns, -1 where the
// OS has no getrusage.
func processCPUNs() int64 {
	ru, err := osthread.ProcessUsage()
	if err != nil {
		return -1
	}
	return ru.UserNs + ru.SysNs
}
