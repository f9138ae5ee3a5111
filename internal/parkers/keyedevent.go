package parkers

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// keyedEventParker is parking_lot's windows/keyed_event.rs, with one rule
// from Rust std's keyed-event parker (std sys/sync/thread_parking/windows7.rs,
// mod keyed_events) so that a thread may unpark itself. The key is the
// parker's address; the state word says whether a release is coming.
const (
	keUnparked uintptr = 0
	keParked   uintptr = 1 // the owner is waiting, or committed to wait
	keTimedOut uintptr = 2
	keArmed    uintptr = 3 // PreparePark ran; the owner has not committed yet
)

// Keyed events are a rendezvous: NtReleaseKeyedEvent blocks until a thread
// waits on the key (and NtWaitForKeyedEvent until a release comes). So the
// invariant is: exactly one wait per release, and a release is only sent
// to an owner that will wait.
//
//   - UnparkLock swaps in UNPARKED and releases only if it swapped out
//     PARKED, which only the owner writes, from ARMED, just before its wait.
//     upstream's prepare_park writes PARKED at once (keyed_event.rs:
//     prepare_park), which is sound there only because a thread never
//     unparks itself: a self-wake (PreparePark; UnparkLock().Unpark(); Park
//     on one thread) would release a key only the caller could wait on, and
//     block in NtReleaseKeyedEvent for ever. std writes PARKED only inside
//     park (its fetch_sub) and releases only on PARKED; so do we: an
//     UnparkLock that finds ARMED sends no release, and the owner's
//     ARMED->PARKED CAS then fails and it returns without waiting.
//   - The owner, once its timed wait has timed out, swaps in TIMED_OUT; if
//     it finds UNPARKED a release is coming (it had committed: PARKED), so
//     it MUST wait once more to take it, or that waker blocks in
//     NtReleaseKeyedEvent for ever (keyed_event.rs: park_until). A waker
//     that finds TIMED_OUT does not release, since nobody would take it.
type keyedEventParker struct {
	// timeout is first so the LARGE_INTEGER NT reads is 8-byte aligned on
	// 32-bit Windows too. Owner-only; passed by pointer, so a timed wait
	// does not allocate.
	timeout int64
	state   atomic.Uintptr
	api     keyedEventAPI

	blocked, immediate uint64 // owner-only; see WaitCounts
}

type keyedEventUnpark keyedEventParker

func newKeyedEventParker(api keyedEventAPI) *keyedEventParker {
	return &keyedEventParker{api: api}
}

func (p *keyedEventParker) key() unsafe.Pointer { return unsafe.Pointer(&p.state) }

// PreparePark arms the parker: a sequentially consistent store, ordered
// before the caller's later loads. A waker that finds ARMED sends no
// release (the owner's commit then fails and Park returns at once); one
// that finds PARKED (after the owner's commit) releases exactly once, and
// the wait that follows takes it.
func (p *keyedEventParker) PreparePark()   { p.state.Store(keArmed) }
func (p *keyedEventParker) TimedOut() bool { return p.state.Load() == keTimedOut }

// commit is the owner's ARMED->PARKED: from here on a waker releases and
// the owner must take that release. False: already unparked, and no
// release was (or will be) sent.
func (p *keyedEventParker) commit() bool {
	if p.state.CompareAndSwap(keArmed, keParked) {
		return true
	}
	p.immediate++
	return false
}

// Park waits for the release unconditionally once committed: a waker that
// took PARKED will release exactly once, before or after this wait starts.
func (p *keyedEventParker) Park() {
	if !p.commit() {
		return
	}
	chaos.Point("keyedevent.park.before-wait")
	p.blocked++
	p.api.Wait(p.key(), nil)
}

func (p *keyedEventParker) ParkUntil(deadline time.Time) bool {
	rem := time.Until(deadline)
	if rem <= 0 {
		// Not committed: an UNPARKED here came from ARMED, without a
		// release, so there is nothing to take.
		return p.state.Swap(keTimedOut) == keUnparked
	}
	// NT timeouts are in 100 ns units; negative means relative (to a
	// monotonic clock). Rounded up, like upstream's (nanos + 99) / 100.
	v, ok := ntRelativeTimeout(rem)
	if !ok {
		p.Park() // overflow: sleep indefinitely (upstream)
		return true
	}
	if !p.commit() {
		return true
	}
	p.timeout = v
	chaos.Point("keyedevent.park-until.before-wait")
	p.blocked++
	if p.api.Wait(p.key(), &p.timeout) == statusSuccess {
		return true
	}
	chaos.Point("keyedevent.park-until.timed-out")
	// Committed, then timed out: mark TIMED_OUT; if a waker already
	// marked us UNPARKED (it swapped out PARKED), its release is coming:
	// take it.
	if p.state.Swap(keTimedOut) == keUnparked {
		p.api.Wait(p.key(), nil)
		return true
	}
	return false
}

// ntRelativeTimeout converts d (> 0) to a negative count of 100 ns units.
func ntRelativeTimeout(d time.Duration) (int64, bool) {
	sec, nsec := int64(d/time.Second), int64(d%time.Second)
	if sec > (1<<63-1)/10_000_000 {
		return 0, false
	}
	return -sec*10_000_000 - (nsec+99)/100, true
}

// UnparkLock marks the thread UNPARKED; only if it was PARKED (waiting, or
// committed to wait) does the handle release it.
func (p *keyedEventParker) UnparkLock() UnparkHandle {
	if p.state.Swap(keUnparked) == keParked {
		return (*keyedEventUnpark)(p)
	}
	// ARMED: the owner will see UNPARKED and not wait. TIMED_OUT: it has
	// stopped waiting. Either way nobody would take a release.
	return spinUnpark{}
}

func (h *keyedEventUnpark) Unpark() {
	chaos.Point("keyedevent.unpark.before-release")
	h.api.Release((*keyedEventParker)(h).key())
}

// WaitCounts implements WaitCounter: a park that found itself already
// unparked (before committing) counts immediate; every other park makes a
// keyed-event wait (the protocol needs one per release) and counts blocked.
func (p *keyedEventParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
