//go:build linux

package parkers

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
	"golang.org/x/sys/unix"
)

// futexParker is parking_lot_core's linux.rs: one int32, 1 = "should park",
// 0 = "unparked".
//
// Missed-wakeup argument: the owner stores 1 (PreparePark) before it is
// queued, and the waker can only find it in the queue after that, so the
// waker's store of 0 (UnparkLock) comes after the owner's store of 1. The
// owner sleeps with FUTEX_WAIT(expected 1): the kernel compares the word with
// 1 under its hash-bucket lock before sleeping, and FUTEX_WAKE takes the same
// lock. Either the waker's 0 is visible at that comparison (EAGAIN: the
// owner returns at once and sees 0 in its loop), or the owner is already on
// the futex queue when FUTEX_WAKE runs and is woken. There is no third case.
type futexParker struct {
	state atomic.Int32
	raw   bool // futex-raw: wait with RawSyscall6, bounded slices

	blocked, immediate uint64 // owner-only; see WaitCounts
}

// futexUnpark is the handle: the same object, so returning it in an
// UnparkHandle interface does not allocate.
type futexUnpark futexParker

func newFutex() ThreadParker    { return &futexParker{} }
func newFutexRaw() ThreadParker { return &futexParker{raw: true} }

// PreparePark stores 1. Relaxed in upstream, where the queue lock taken next
// orders it; Go atomics are sequentially consistent, which is stronger and
// what a caller without a lock needs: the store is ordered before the
// caller's next load of its flag (no store->load reordering), so a waker
// whose flag store that load missed clears the word after this 1, and
// FUTEX_WAIT(1) then refuses to sleep.
func (p *futexParker) PreparePark() { p.state.Store(1) }

// TimedOut reports whether the word is still 1: no UnparkLock ran.
func (p *futexParker) TimedOut() bool { return p.state.Load() != 0 }

// Park waits while the word is 1. FUTEX_WAIT may return spuriously (EINTR,
// EAGAIN, a stale wake meant for an earlier park); the loop re-checks the
// word, so Park never returns before UnparkLock stored 0.
func (p *futexParker) Park() {
	if p.state.Load() == 0 {
		p.immediate++
		return
	}
	for p.state.Load() != 0 {
		chaos.Point("futex.park.before-wait")
		p.wait(nil)
	}
}

// rawSlice bounds every futex-raw wait; see futex-raw's Summary.
const rawSlice = time.Millisecond

// wait is one FUTEX_WAIT(1) with a relative timeout (nil: none) and counts it.
func (p *futexParker) wait(ts *unix.Timespec) unix.Errno {
	var e unix.Errno
	if p.raw {
		// A raw wait holds the P and cannot be preempted (the thread is
		// in the kernel, and a signal that interrupts it returns into
		// assembly with no safe point), so stop-the-world would wait for
		// it. Bound each wait to rawSlice: the thread comes back to Go
		// code, where the loop's function calls are preemption points,
		// at least every rawSlice.
		slice := unix.NsecToTimespec(int64(rawSlice))
		if ts == nil || ts.Nano() > slice.Nano() {
			ts = &slice
		}
		e = futexWaitRelRaw(&p.state, 1, ts)
	} else {
		e = futexWaitRel(&p.state, 1, ts)
	}
	switch e {
	case unix.EAGAIN:
		p.immediate++ // the word was already 0: no sleep
	case 0, unix.ETIMEDOUT, unix.EINTR:
		p.blocked++
	default:
		// EFAULT/EINVAL cannot happen for a live, aligned word.
		panic("parkers: futex wait: " + e.Error())
	}
	return e
}

// ParkUntil waits while the word is 1 and the deadline has not passed. Like
// linux.rs it recomputes a relative timespec from the monotonic clock on
// every turn, so a spurious return just waits for the rest. A deadline too
// far away for a timespec waits without a timeout and reports true.
func (p *futexParker) ParkUntil(deadline time.Time) bool {
	if p.state.Load() == 0 {
		p.immediate++
		return true
	}
	for p.state.Load() != 0 {
		rem := time.Until(deadline) // monotonic
		if rem <= 0 {
			chaos.Point("futex.park-until.timed-out")
			return false
		}
		if !fitsTimespec(rem) {
			// linux.rs: a timeout that overflows time_t sleeps
			// indefinitely.
			p.Park()
			return true
		}
		ts := unix.NsecToTimespec(int64(rem))
		chaos.Point("futex.park-until.before-wait")
		p.wait(&ts)
	}
	return true
}

// UnparkLock stores 0 (upstream: Release) under the queue lock. No lock of
// its own is needed: from this store on the owner may return from Park at
// any moment, and the wake below only has to reach it if it is asleep.
func (p *futexParker) UnparkLock() UnparkHandle {
	p.state.Store(0)
	return (*futexUnpark)(p)
}

// Unpark is FUTEX_WAKE(1), after the queue lock is released. Upstream
// tolerates EFAULT because the target's ThreadData may already be freed
// (the thread returned from park and exited). In Go that cannot happen: the
// handle holds a pointer to the parker, so the garbage collector keeps the
// word alive; a stale wake of a word nobody waits on is harmless (returns 0).
// EFAULT is still tolerated, to keep upstream's contract.
func (h *futexUnpark) Unpark() {
	chaos.Point("futex.unpark.before-wake")
	var e unix.Errno
	if h.raw {
		e = futexWakeRaw(&h.state) // never blocks: safe raw
	} else {
		_, e = futexWakeN(&h.state, 1)
	}
	if e != 0 && e != unix.EFAULT {
		panic("parkers: futex wake: " + e.Error())
	}
}

// WaitCounts implements WaitCounter. Immediate: a Park/ParkUntil that found
// itself already unparked, and each FUTEX_WAIT that returned EAGAIN (the
// word was 0 by the time the kernel compared it). Blocked: each FUTEX_WAIT
// that slept (woken, timed out, or interrupted); futex-raw counts every
// bounded 1 ms slice it sleeps as one.
func (p *futexParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }

func init() {
	Register(Backend{
		Name:             NameFutex,
		Kind:             KindThread,
		Summary:          "parking_lot linux.rs: int32 word, private FUTEX_WAIT/FUTEX_WAKE via unix.Syscall6 (scheduler-aware), relative timeout",
		Sleeps:           true,
		CheapToConstruct: true,
		NewThread:        newFutex,
		Order:            orderFutex,
	})
	Register(Backend{
		Name: NameFutexRaw,
		Kind: KindThread,
		Summary: "futex with wait and wake through unix.RawSyscall6 (bypasses the Go scheduler: the P stays with the thread); " +
			"every wait bounded to 1 ms so GC/stop-the-world can proceed; safe only with GOMAXPROCS > participants, GC off, a watchdog",
		Sleeps:           true,
		CheapToConstruct: true,
		NewThread:        newFutexRaw,
		Order:            orderFutexRaw,
	})
}
