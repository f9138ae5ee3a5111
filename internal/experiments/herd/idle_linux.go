package herd

import (
	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/schedacct"
)

// threadCost is thread tid's CPU time (ns: its per-thread CPU clock,
// MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED), user and kernel) and context
// switches (/proc/self/task/TID/status), read from another thread of the
// process: the idle pool's workers are measured by the notifier while they
// sleep, so that nothing is added to their own paths.
func threadCost(tid int) (cpu, csw int64, ok bool) {
	id := int32(^uint32(tid)<<3 | 6)
	var ts unix.Timespec
	if unix.ClockGettime(id, &ts) != nil {
		return 0, 0, false
	}
	v, iv, err := schedacct.ThreadSwitchesSplit(tid)
	if err != nil {
		return 0, 0, false
	}
	return ts.Nano(), v + iv, true
}
