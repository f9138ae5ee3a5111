//go:build linux

package parkers

import (
	"runtime"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/futex"
	"github.com/parkbench/parkbench/internal/inject"
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
	how   *futexHow // how it waits: one per backend, never changed

	blocked, immediate uint64        // owner-only; see WaitCounts
	yields             uint64        // owner-only: keep-alive Goscheds
	lastYield          time.Duration // owner-only: monotonic time of the last keep-alive
	lastWait           time.Duration // owner-only: monotonic time of the last beforeWait
}

// futexUnpark is the handle: the same object, so returning it in an
// UnparkHandle interface does not allocate.
type futexUnpark futexParker

func newFutexWith(how *futexHow) func() ThreadParker {
	return func() ThreadParker { return &futexParker{how: how} }
}

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
	p.beforeWait()
	for p.state.Load() != 0 {
		chaos.Point("futex.park.before-wait")
		p.wait(nil)
	}
}

// beforeWait runs once per Park/ParkUntil that found the word still 1: the
// keep-alive yield and the short spin of the variants that have them (see
// futexHow). Neither can lose a wake: the wait that follows compares the
// word with 1 in the kernel, whatever happened meanwhile.
func (p *futexParker) beforeWait() {
	how := p.how
	if how.keepAlive > 0 {
		now := time.Since(monoEpoch)
		switch {
		case p.lastWait == 0 || now-p.lastWait >= how.keepAlive:
			// The first wait of a stretch (none on this parker for a
			// keep-alive period): open the window, do not yield. A
			// Gosched protects the waits of the next 10 ms from sysmon's
			// retake; a lone wait gains nothing from it (if it sleeps
			// 10 ms, its P is retaken anyway), and a stretch of waits
			// gets its first keep-alive one period in. Yielding here
			// cost every herd waiter (one wait each) a switch of its own
			// and two or three of other threads (docs/findings.md).
			p.lastYield = now
		case now-p.lastYield >= how.keepAlive:
			p.lastYield = now
			p.yields++
			runtime.Gosched()
		}
		p.lastWait = now
	}
	for i := 0; i < how.spin && p.state.Load() != 0; i++ {
		CPURelax(futexSpinRelax)
	}
}

// wait is one FUTEX_WAIT(1) with a relative timeout (nil: none) and counts it.
func (p *futexParker) wait(ts *unix.Timespec) unix.Errno {
	var e unix.Errno
	switch how := p.how; {
	case how.raw:
		// A raw wait holds the P and the runtime believes the goroutine
		// is running, so stop-the-world must preempt it. Bound each wait
		// to how.bound: the thread comes back to Go code, where the
		// loop's function calls are preemption points, at least that
		// often. The bound also makes the wait interruptible: a FUTEX_WAIT
		// with a timeout that a signal interrupts returns EINTR even
		// under SA_RESTART (the kernel's -ERESTART_RESTARTBLOCK becomes
		// EINTR when a handler ran; without a timeout it is
		// -ERESTARTSYS, which SA_RESTART restarts), so the runtime's
		// preemption signal (SIGURG, resent every 100 µs while
		// stopping the world) brings the thread back at once; the
		// bound only matters when async preemption is off
		// (GODEBUG=asyncpreemptoff=1).
		slice := unix.NsecToTimespec(int64(how.bound))
		if ts == nil || ts.Nano() > slice.Nano() {
			ts = &slice
		}
		e = futex.WaitRaw(&p.state, 1, ts)
	case how.cgo:
		e = futexWaitCgo(&p.state, 1, ts)
	default:
		e = futex.Wait(&p.state, 1, ts)
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
	first := true
	for p.state.Load() != 0 {
		rem := time.Until(deadline) // monotonic
		if rem <= 0 {
			chaos.Point("futex.park-until.timed-out")
			return false
		}
		if !futex.FitsTimespec(rem) {
			// linux.rs: a timeout that overflows time_t sleeps
			// indefinitely.
			p.Park()
			return true
		}
		if first {
			p.beforeWait()
			first = false
			continue // re-check the word and the clock
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
	inject.Wake(inject.Futex) // -tags parkinject only: a slower wake path
	var e unix.Errno
	if h.how.raw {
		e = futex.WakeRaw(&h.state) // never blocks: safe raw
	} else {
		_, e = futex.Wake(&h.state, 1)
	}
	if e != 0 && e != unix.EFAULT {
		panic("parkers: futex wake: " + e.Error())
	}
}

// WaitCounts implements WaitCounter. Immediate: a Park/ParkUntil that found
// itself already unparked, and each FUTEX_WAIT that returned EAGAIN (the
// word was 0 by the time the kernel compared it). Blocked: each FUTEX_WAIT
// that slept (woken, timed out, or interrupted); futex-raw counts every
// bounded slice it sleeps as one (1 s; futex-raw-1ms: 1 ms).
func (p *futexParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }

// Yields is the number of keep-alive Goscheds this parker made (owner-only,
// as WaitCounts).
func (p *futexParker) Yields() uint64 { return p.yields }

func init() {
	for _, v := range futexVariants {
		provide(v.name, v.unavailable, newFutexWith(&v.how), nil)
	}
}
