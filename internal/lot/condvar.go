package lot

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// Condvar is parking_lot's Condvar: a condition variable whose waiters
// queue in the parking lot under the condvar's address. The zero value is
// ready; it must not be copied after first use.
//
// As upstream, and unlike sync.Cond:
//   - it is used with one Mutex at a time: waiting with a second mutex
//     while threads wait with the first panics;
//   - there are no spurious wakeups: Wait returns only after a notify (or
//     WaitUntil/WaitFor on a timeout);
//   - NotifyAll wakes at most one thread and requeues the rest onto the
//     mutex's queue, where each Unlock wakes the next (no thundering herd);
//   - it is one word;
//   - waiting with a mutex that is not locked panics (upstream's guard
//     rules it out), before the thread is queued: both stay usable.
type Condvar struct {
	// state is the mutex the waiters use, nil when nobody waits. Written
	// only with the condvar's bucket lock held (in Wait's validate and
	// timed-out callbacks and the notify callbacks); read unlocked only by
	// the notify fast path, where a stale value is harmless (see
	// NotifyAll).
	state atomic.Pointer[Mutex]
}

// String formats like upstream's Debug: "Condvar { .. }".
func (c *Condvar) String() string { return "Condvar { .. }" }

const (
	badMutexMsg      = "attempted to use a condition variable with more than one mutex"
	unlockedMutexMsg = "lot: Condvar wait with a Mutex that is not locked"
)

// NotifyOne wakes one waiting thread, if any, and reports whether it woke
// or requeued one. If the mutex is held (the usual case: notify with the
// lock held), the thread is not woken but requeued onto the mutex, so it
// wakes when the mutex is unlocked; that still counts as true.
//
// A notify is not buffered: with nobody waiting it does nothing.
func (c *Condvar) NotifyOne() bool {
	// Nothing to do if there are no waiting threads.
	state := c.state.Load()
	if state == nil {
		return false
	}
	return c.notifyOneSlow(state)
}

func (c *Condvar) notifyOneSlow(m *Mutex) bool {
	// Unpark one thread, or requeue it onto the mutex if the mutex is held.
	res := UnparkRequeue(unsafe.Pointer(c), unsafe.Pointer(m),
		func() RequeueOp {
			// The mutex may have changed (or the waiters left) since our
			// unlocked load: then there is nobody of ours to notify.
			if c.state.Load() != m {
				return RequeueOpAbort
			}
			// Unpark one thread if the mutex is unlocked, else requeue it
			// onto the mutex. This is safe: unlocking a mutex whose
			// parked bit is set requires its bucket lock, which we hold.
			// If the mutex is locked right after we check, no harm: the
			// woken thread will park on it.
			if m.markParkedIfLocked() {
				return RequeueOpRequeueOne
			}
			return RequeueOpUnparkOne
		},
		func(_ RequeueOp, result UnparkResult) UnparkToken {
			// Clear our state if there are no more waiting threads.
			if !result.HaveMoreThreads {
				c.state.Store(nil)
			}
			return tokenNormal
		})
	return res.UnparkedThreads+res.RequeuedThreads != 0
}

// NotifyAll wakes all waiting threads and returns how many it woke or
// requeued. If the mutex is held, every waiter is requeued onto it
// (RequeueAll) and none is woken now; otherwise one is woken and the rest
// requeued (UnparkOneRequeueRest). Either way the mutex's unlocks then wake
// them one at a time. The result counts requeued threads too: with N
// waiters it is N.
func (c *Condvar) NotifyAll() int {
	r := c.NotifyAllResult()
	return r.UnparkedThreads + r.RequeuedThreads
}

// NotifyAllResult is NotifyAll returning the whole UnparkResult
// (unparked and requeued counts separately), for experiments.
func (c *Condvar) NotifyAllResult() UnparkResult {
	// Nothing to do if there are no waiting threads. A stale non-nil value
	// is caught by validate below (Abort). A stale nil means the waiter has
	// not yet run validate under the bucket lock, so it has not unlocked
	// the mutex either: a notifier that changed the condition under the
	// mutex (or before notifying) is seen by the waiter's own check.
	state := c.state.Load()
	if state == nil {
		return UnparkResult{}
	}
	return c.notifyAllSlow(state)
}

func (c *Condvar) notifyAllSlow(m *Mutex) UnparkResult {
	// Unpark one thread and requeue the rest onto the mutex.
	return UnparkRequeue(unsafe.Pointer(c), unsafe.Pointer(m),
		func() RequeueOp {
			if c.state.Load() != m {
				return RequeueOpAbort
			}
			// Clear our state: we are going to unpark or requeue every
			// thread.
			c.state.Store(nil)
			// Unpark one thread if the mutex is unlocked, else requeue
			// everything onto the mutex (see notifyOneSlow).
			if m.markParkedIfLocked() {
				return RequeueOpRequeueAll
			}
			return RequeueOpUnparkOneRequeueRest
		},
		func(op RequeueOp, result UnparkResult) UnparkToken {
			// If we requeued threads onto the mutex, mark it as having
			// parked threads (RequeueAll already did in validate).
			if op == RequeueOpUnparkOneRequeueRest && result.RequeuedThreads != 0 {
				m.markParked()
			}
			return tokenNormal
		})
}

// NotifyAllWake is NOT upstream: it wakes every waiter at once (std-style
// broadcast, what unpark_all would do), with no requeue, so all of them
// then contend for the mutex. parkbench's E6 uses it ("lot-wakeall") to
// isolate what the requeue buys. It returns how many threads it woke.
//
// It is UnparkAll's algorithm, run through UnparkFilter (every thread
// FilterOpUnpark) so that the condvar's state can be cleared in the
// callback, under the bucket lock, as the upstream notifies do.
func (c *Condvar) NotifyAllWake() int {
	state := c.state.Load()
	if state == nil {
		return 0
	}
	res := UnparkFilter(unsafe.Pointer(c),
		func(ParkToken) FilterOp { return FilterOpUnpark },
		func(UnparkResult) UnparkToken {
			// Every waiter is leaving the queue.
			c.state.Store(nil)
			return tokenNormal
		})
	return res.UnparkedThreads
}

// Wait unlocks m, waits for a notify, and locks m again before returning.
// m must be held. No spurious wakeups.
func (c *Condvar) Wait(m *Mutex) {
	c.waitUntilInternal(m, time.Time{})
}

// WaitUntil is Wait with a deadline; it reports whether it timed out
// (upstream: WaitTimeoutResult::timed_out). m is held again on return
// either way.
func (c *Condvar) WaitUntil(m *Mutex, deadline time.Time) (timedOut bool) {
	if deadline.IsZero() {
		deadline = time.Unix(0, 1) // already passed, not "forever"
	}
	return c.waitUntilInternal(m, deadline)
}

// WaitFor is Wait with a timeout; it reports whether it timed out.
func (c *Condvar) WaitFor(m *Mutex, d time.Duration) (timedOut bool) {
	return c.waitUntilInternal(m, toDeadline(d))
}

// waitUntilInternal is upstream's wait_until_internal; deadline zero means
// no timeout.
func (c *Condvar) waitUntilInternal(m *Mutex, deadline time.Time) bool {
	addr := unsafe.Pointer(c)
	badMutex := false
	unlocked := false
	requeued := false
	result := Park(addr,
		func() bool {
			// Refuse a mutex that is not held before anything is queued or
			// recorded: beforeSleep's Unlock would fail with the thread
			// already queued. Not upstream, where the MutexGuard makes this
			// impossible. Exact when the caller is the one misusing it: only
			// the holder unlocks a held mutex.
			if !m.IsLocked() {
				unlocked = true
				return false
			}
			// Make sure one condvar is not used with two mutexes at once.
			// Done under the bucket lock to avoid races with the notifies.
			state := c.state.Load()
			if state == nil {
				c.state.Store(m)
			} else if state != m {
				badMutex = true
				return false
			}
			return true
		},
		func() {
			// Unlock the mutex only now, after we are in the queue: a notify
			// issued after this unlock must take the bucket lock first and
			// will find us.
			// Window: validated and queued, the mutex not yet released.
			chaos.Point("lot.condvar.validated")
			m.Unlock()
		},
		func(k unsafe.Pointer, wasLast bool) {
			// If we were requeued onto the mutex, we did not time out: we
			// will park on the mutex again when we lock it below.
			requeued = k != addr
			// If we were the last thread on the queue, clear our state. The
			// notifies do this when they remove the last waiter.
			if !requeued && wasLast {
				c.state.Store(nil)
			}
		},
		DefaultParkToken, deadline)

	// Panic if we tried to use multiple mutexes with one Condvar. Note that
	// m is still locked: before_sleep did not run.
	if badMutex {
		panic(badMutexMsg)
	}
	if unlocked {
		panic(unlockedMutexMsg)
	}

	// Re-lock the mutex, unless it was handed to us: requeued onto the
	// mutex and unparked by a fair unlock.
	if result != Unparked(tokenHandoff) {
		// Window: Park returned, the mutex not yet relocked.
		chaos.Point("lot.condvar.relock")
		m.Lock()
	} else {
		deadlockAcquire(unsafe.Pointer(m))
	}
	return !(result.IsUnparked() || requeued)
}
