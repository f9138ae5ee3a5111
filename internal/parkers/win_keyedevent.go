package parkers

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// keyedEventParker is parking_lot's windows/keyed_event.rs. The key is the
// parker's address; the state word says whether a release is coming.
const (
	keUnparked uintptr = 0
	keParked   uintptr = 1
	keTimedOut uintptr = 2
)

// Keyed events are a rendezvous: NtReleaseKeyedEvent blocks until a thread
// waits on the key. So the invariant is: exactly one wait per release.
// UnparkLock swaps in UNPARKED and only a waker that swapped out PARKED will
// release; the owner, once it has stopped waiting (timed out), swaps in
// TIMED_OUT, and if it finds UNPARKED a release is coming or pending, so it
// MUST wait once more to take it, or that waker blocks in
// NtReleaseKeyedEvent for ever. Conversely a waker that finds TIMED_OUT does
// not release, since nobody would take it.
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

// PreparePark: a sequentially consistent store, ordered before the caller's
// later loads; a waker's Swap after it sees PARKED and releases, and the
// release is taken by the wait that follows.
func (p *keyedEventParker) PreparePark()   { p.state.Store(keParked) }
func (p *keyedEventParker) TimedOut() bool { return p.state.Load() == keTimedOut }

// Park waits for the release unconditionally: a waker that took PARKED
// will release exactly once, before or after this wait starts.
func (p *keyedEventParker) Park() {
	chaos.Point("keyedevent.park.before-wait")
	p.blocked++
	p.api.Wait(p.key(), nil)
}

func (p *keyedEventParker) ParkUntil(deadline time.Time) bool {
	rem := time.Until(deadline)
	if rem <= 0 {
		return p.timedOut()
	}
	// NT timeouts are in 100 ns units; negative means relative (to a
	// monotonic clock). Rounded up, like upstream's (nanos + 99) / 100.
	v, ok := ntRelativeTimeout(rem)
	if !ok {
		p.Park() // overflow: sleep indefinitely (upstream)
		return true
	}
	p.timeout = v
	chaos.Point("keyedevent.park-until.before-wait")
	p.blocked++
	if p.api.Wait(p.key(), &p.timeout) == statusSuccess {
		return true
	}
	chaos.Point("keyedevent.park-until.timed-out")
	return p.timedOut()
}

// timedOut is the shared timeout exit: mark TIMED_OUT; if a waker already
// marked us UNPARKED, its release is coming: take it.
func (p *keyedEventParker) timedOut() bool {
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

// UnparkLock marks the thread UNPARKED; only if it was PARKED (still
// waiting, or about to) does the handle release it.
func (p *keyedEventParker) UnparkLock() UnparkHandle {
	if p.state.Swap(keUnparked) == keParked {
		return (*keyedEventUnpark)(p)
	}
	return spinUnpark{} // timed out: nobody would take a release
}

func (h *keyedEventUnpark) Unpark() {
	chaos.Point("keyedevent.unpark.before-release")
	h.api.Release((*keyedEventParker)(h).key())
}

// WaitCounts implements WaitCounter: every park makes a keyed-event wait
// (the protocol needs one per release), so all count as blocked.
func (p *keyedEventParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
