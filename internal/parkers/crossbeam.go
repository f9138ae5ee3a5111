package parkers

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// crossbeam-utils' Parker/Unparker (crossbeam-utils/src/sync/parker.rs): a
// three-state word on a mutex + condvar, every atomic SeqCst (Go's atomics
// are). The mutex and condvar are cbMutex/cbCond: on Linux a futex mutex and
// a futex condvar like Rust std's (what crossbeam's std::sync::Mutex and
// Condvar are there), which block the OS thread; elsewhere sync.Mutex and a
// single-waiter channel condvar (see crossbeam_other.go).
const (
	cbEmpty    int64 = 0
	cbParked   int64 = 1
	cbNotified int64 = 2
)

type cbInner struct {
	state atomic.Int64 // usize upstream
	lock  cbMutex
	cvar  cbCond

	blocked, immediate uint64 // owner-only (the Parker's thread); see WaitCounts
}

// Parker is crossbeam's Parker: owned by one thread, which alone may call
// Park, ParkTimeout and ParkDeadline. One token, not cumulative: Unpark
// before Park makes the next park return at once, and ten Unparks do so only
// once.
type Parker struct {
	unparker Unparker
}

// Unparker is the other half: any number of threads may hold it (share the
// pointer, or Clone it) and call Unpark.
type Unparker struct {
	inner *cbInner
}

// NewCrossbeam returns a new Parker (crossbeam's Parker::new()).
func NewCrossbeam() *Parker {
	return &Parker{unparker: Unparker{inner: &cbInner{}}}
}

func newCrossbeamToken() TokenParker { return NewCrossbeam() }

// Unparker returns the parker's Unparker (crossbeam's parker.unparker()).
func (p *Parker) Unparker() *Unparker { return &p.unparker }

// Park blocks until a token is available and consumes it.
func (p *Parker) Park() { p.unparker.inner.park(false, time.Time{}) }

// ParkTimeout is Park with a timeout; it reports true if it consumed a token
// (crossbeam main's UnparkReason::Unparked) and false on timeout. A timeout
// too large for the clock parks without one and reports true, as upstream's
// Instant overflow path does.
func (p *Parker) ParkTimeout(d time.Duration) bool {
	now := time.Now()
	deadline := now.Add(d)
	if d > 0 && deadline.Before(now) {
		p.Park()
		return true
	}
	return p.unparker.inner.park(true, deadline)
}

// ParkDeadline is Park until deadline; true if it consumed a token.
func (p *Parker) ParkDeadline(deadline time.Time) bool {
	return p.unparker.inner.park(true, deadline)
}

// WaitCounts implements WaitCounter: per park, a token found without waiting
// (immediate) or at least one condvar wait (blocked).
func (p *Parker) WaitCounts() (blocked, immediate uint64) {
	return p.unparker.inner.blocked, p.unparker.inner.immediate
}

// Unpark makes a token available (the same as p.Unparker().Unpark()).
func (p *Parker) Unpark() { p.unparker.inner.unpark() }

// Unpark makes a token available, waking the parked thread if it is parked.
func (u *Unparker) Unpark() { u.inner.unpark() }

// Clone returns another Unparker for the same Parker (crossbeam's
// Unparker: Clone).
func (u *Unparker) Clone() *Unparker { return &Unparker{inner: u.inner} }

func (p *Parker) String() string   { return "Parker { .. }" }
func (u *Unparker) String() string { return "Unparker { .. }" }

// park is crossbeam's Inner::park(deadline). It returns true if it consumed
// a token, false on timeout; spurious condvar wakeups never escape.
func (in *cbInner) park(hasDeadline bool, deadline time.Time) bool {
	// 1. Fast path: consume a pending token without the lock.
	if in.state.CompareAndSwap(cbNotified, cbEmpty) {
		in.immediate++
		return true
	}
	// 2. The deadline has already passed.
	if hasDeadline && !time.Now().Before(deadline) {
		return false
	}
	// Between the fast path's CAS and the lock: an Unpark here finds
	// EMPTY and only sets NOTIFIED, which the CAS under the lock sees.
	chaos.Point("crossbeam.park.before-lock")
	// 3. Lock, then announce PARKED. Holding the lock from here until the
	// condvar wait releases it is what makes the waker's lock+unlock in
	// unpark a barrier: once it has the lock, we are inside the wait.
	in.lock.Lock()
	if !in.state.CompareAndSwap(cbEmpty, cbParked) {
		if in.state.Load() != cbNotified {
			panic("inconsistent park_timeout state")
		}
		// Must read from the latest unpark's write (a swap, not a
		// store) to synchronise with it: an Unpark may have run again
		// since the CAS read NOTIFIED.
		if old := in.state.Swap(cbEmpty); old != cbNotified {
			panic("park state changed unexpectedly")
		}
		in.lock.Unlock()
		in.immediate++
		return true
	}
	in.blocked++
	for {
		chaos.Point("crossbeam.park.before-wait")
		if !hasDeadline {
			in.cvar.Wait(&in.lock, false, time.Time{})
			chaos.Point("crossbeam.park.after-wait")
		} else if time.Now().Before(deadline) {
			// A timeout and an unpark arriving together: upstream
			// prefers to report the unpark (the CAS below), so the
			// condvar's own timeout result is ignored.
			in.cvar.Wait(&in.lock, true, deadline)
			chaos.Point("crossbeam.park.after-wait")
		} else {
			// Timed out: back to EMPTY on the way out.
			chaos.Point("crossbeam.park.timed-out")
			old := in.state.Swap(cbEmpty)
			in.lock.Unlock()
			switch old {
			case cbNotified:
				return true
			case cbParked:
				return false
			}
			panic("inconsistent park_timeout state")
		}
		if in.state.CompareAndSwap(cbNotified, cbEmpty) {
			in.lock.Unlock()
			return true
		}
		// Spurious wakeup (or the timeout, caught at the top): wait again.
	}
}

// unpark is crossbeam's Inner::unpark.
func (in *cbInner) unpark() {
	// A swap even if already NOTIFIED: a release write the parked side
	// can synchronise with.
	switch in.state.Swap(cbNotified) {
	case cbEmpty, cbNotified:
		return // nobody waiting, or already unparked
	case cbParked:
	default:
		panic("inconsistent state in unpark")
	}
	// The parked thread set PARKED holding the lock and keeps it until
	// its condvar wait releases it; a notify in between would be lost.
	// Taking and dropping the lock waits for it to be inside the wait.
	chaos.Point("crossbeam.unpark.before-lock")
	in.lock.Lock()
	//lint:ignore SA2001 deliberate barrier (crossbeam-utils sync/parker.rs unpark: `drop(self.lock.lock())`): it waits for the parked thread to be inside its condvar wait
	in.lock.Unlock()
	// Notify after unlocking, so the woken thread does not wake only to
	// block on the lock we still hold.
	chaos.Point("crossbeam.unpark.before-notify")
	in.cvar.NotifyOne()
}

func init() { provide(NameCrossbeam, nil, nil, newCrossbeamToken) }
