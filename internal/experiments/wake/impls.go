package wake

import (
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// implSpec is one --impl of wake: which benches it has and how it runs
// them.
type implSpec struct {
	name    string
	kind    string // results.Config.Kind
	summary string
	// unavailable says why it does not run here (nil: it does).
	unavailable func() error
	// wakeK and requeueK say which per-call counts (0: all at once) the
	// wake and requeue benches take; nil: the bench is not offered.
	wakeK, requeueK func(k int) bool
	// parallel: wake-parallel is offered (each waker makes one wakeCall).
	parallel bool
	// hash is the hash bench's operation, nil if not offered.
	hash *hashOp
	// pc is the producer/consumer, nil if not offered.
	pc pcImpl
	// newGroup starts one run's n waiters, pinned to cpus (nil: unpinned).
	newGroup func(n int, cpus []int) (group, error)
}

func anyK(int) bool       { return true }
func oneOrAll(k int) bool { return k == 1 || k == 0 }

func goGroup(f func(n int, cpus []int) group) func(int, []int) (group, error) {
	return func(n int, cpus []int) (group, error) { return f(n, cpus), nil }
}

// cWaiters is a newGroup of C waiter threads waiting in kind's call.
func cWaiters(kind cref.WakeKind) func(int, []int) (group, error) {
	return func(n int, cpus []int) (group, error) { return newCGroup(kind, n, cpus) }
}

// allImpls are the implementations in --impl order.
var allImpls = []implSpec{
	{
		name:        "futex",
		kind:        "thread",
		summary:     "perf bench futex's loops in Go threads: raw FUTEX_WAIT_PRIVATE waiters; FUTEX_WAKE_PRIVATE(k) / FUTEX_CMP_REQUEUE_PRIVATE(k) from the waker (RawSyscall6); hash: FUTEX_WAIT that fails with EAGAIN",
		unavailable: driver.NeedFutex,
		wakeK:       anyK,
		requeueK:    anyK,
		parallel:    true,
		hash:        &hashOp{kernel: true},
		newGroup:    goGroup(func(n int, cpus []int) group { return newFutexGroup(n, cpus, false) }),
	},
	{
		name:        "futex-shared",
		kind:        "thread",
		summary:     "the same with shared futexes (perf -S): the kernel keys each word by its page, not by the process",
		unavailable: driver.NeedFutex,
		wakeK:       anyK,
		requeueK:    anyK,
		parallel:    true,
		hash:        &hashOp{kernel: true, shared: true},
		newGroup:    goGroup(func(n int, cpus []int) group { return newFutexGroup(n, cpus, true) }),
	},
	{
		name:        "c-futex",
		kind:        "c-reference",
		summary:     "perf's wake and requeue in C: C waiter threads, the timed FUTEX_WAKE / FUTEX_CMP_REQUEUE loop in one cgo call (no Go runtime between the clock reads)",
		unavailable: cref.WakeAvailable,
		wakeK:       anyK,
		requeueK:    anyK,
		newGroup:    cWaiters(cref.WaitFutex),
	},
	{
		name:     "lot",
		kind:     "lot",
		summary:  "the parking lot: waiters in lot.Park on one key; UnparkOne per call, UnparkAll at once, UnparkFilter for k; UnparkRequeue (RequeueOne / RequeueAll); hash: Park with a failing validate over many keys; condvar: lot.Condvar + lot.Mutex",
		wakeK:    anyK,
		requeueK: oneOrAll,
		parallel: true,
		hash:     &hashOp{},
		pc:       lotPC,
		newGroup: goGroup(func(n int, cpus []int) group { return newLotGroup(n, cpus) }),
	},
	{
		name:        "std",
		kind:        "thread",
		summary:     "Rust std's futex Condvar + Mutex (herd's futex-broadcast): notify_one per waiter, or notify_all = FUTEX_WAKE(INT_MAX); condvar: the same pair",
		unavailable: driver.NeedFutex,
		wakeK:       oneOrAll,
		pc:          stdPC,
		newGroup:    goGroup(func(n int, cpus []int) group { return newStdGroup(n, cpus) }),
	},
	{
		name:        "std-requeue",
		kind:        "thread",
		summary:     "the futex Condvar with FUTEX_CMP_REQUEUE onto the Mutex (herd's futex-requeue): notify_all wakes one and requeues the rest; requeue: notify with the mutex held requeues without waking",
		unavailable: driver.NeedFutex,
		wakeK:       oneOrAll,
		requeueK:    oneOrAll,
		newGroup:    goGroup(func(n int, cpus []int) group { return newStdRequeueGroup(n, cpus) }),
	},
	{
		name:        "pthread",
		kind:        "c-reference",
		summary:     "glibc pthread_cond_signal per waiter or pthread_cond_broadcast, C waiter threads, timed in C; condvar: pthread mutex + condvars in C threads",
		unavailable: cref.WakeAvailable,
		wakeK:       oneOrAll,
		pc:          cPC,
		newGroup:    cWaiters(cref.WaitCond),
	},
	{
		name:     "sync",
		kind:     "goroutine",
		summary:  "Go sync.Cond.Signal per waiter or Broadcast, waiters are plain goroutines (goroutine level); condvar: sync.Mutex + sync.Cond",
		wakeK:    oneOrAll,
		pc:       syncPC,
		newGroup: goGroup(func(n int, _ []int) group { return newSyncGroup(n) }),
	},
}

// offers reports whether im has bench.
func (im implSpec) offers(bench string) bool {
	switch bench {
	case BenchWake:
		return im.wakeK != nil
	case BenchRequeue:
		return im.requeueK != nil
	case BenchParallel:
		return im.parallel
	case BenchHash:
		return im.hash != nil
	case BenchCondvar:
		return im.pc != nil
	}
	return false
}
