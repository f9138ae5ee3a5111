package lot

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// Once is parking_lot's Once (parking_lot src/once.rs): runs a function
// exactly once, the other callers parking until it has finished. It uses
// the parking lot for a one-shot wake-all. The zero value is a new Once;
// it must not be copied after first use.
//
// Poisoning, as upstream, with Go's panics standing for Rust's unwinding:
// if the function panics (or calls runtime.Goexit), the Once is poisoned,
// every parked caller is woken, and the panic goes on up the caller's
// stack. Later CallOnce calls panic ("Once instance has previously been
// poisoned"); CallOnceForce runs its function again, told OncePoisoned,
// and a successful run clears the poison. A recovered panic leaves the
// Once usable this way, with nothing queued on it.
type Once struct {
	// state holds the bits below. Only the thread holding onceLocked
	// stores to it besides the CASes setting onceLocked or onceParked;
	// onceParked is cleared only by that thread's final swap, which then
	// wakes everyone parked (UnparkAll takes the bucket lock, so a thread
	// whose validate saw LOCKED|PARKED is queued by then and woken).
	//
	//	DONE POISON LOCKED PARKED  meaning
	//	0    0      0      0       new
	//	0    1      0      0       poisoned: the function panicked
	//	0    x      1      x       a thread runs the function; PARKED:
	//	                           others wait for it
	//	1    0      0      0       done
	state atomic.Uint32
}

const (
	onceDoneBit   uint32 = 1
	oncePoisonBit uint32 = 2
	onceLockedBit uint32 = 4
	onceParkedBit uint32 = 8
)

// OnceState is the state of a Once, as upstream's OnceState.
type OnceState uint8

const (
	// OnceNew: the function has not been run yet.
	OnceNew OnceState = iota
	// OncePoisoned: a run of the function panicked.
	OncePoisoned
	// OnceInProgress: a thread is running the function.
	OnceInProgress
	// OnceDone: the function has completed.
	OnceDone
)

// Poisoned reports whether s is OncePoisoned.
func (s OnceState) Poisoned() bool { return s == OncePoisoned }

// Done reports whether s is OnceDone.
func (s OnceState) Done() bool { return s == OnceDone }

// String gives upstream's Debug names.
func (s OnceState) String() string {
	switch s {
	case OnceNew:
		return "New"
	case OncePoisoned:
		return "Poisoned"
	case OnceInProgress:
		return "InProgress"
	case OnceDone:
		return "Done"
	}
	return "OnceState(?)"
}

// NewCompletedOnce returns a Once that is already done (upstream
// Once::new_completed).
func NewCompletedOnce() *Once {
	o := new(Once)
	o.state.Store(onceDoneBit)
	return o
}

// State returns o's current state.
func (o *Once) State() OnceState {
	state := o.state.Load()
	switch {
	case state&onceDoneBit != 0:
		return OnceDone
	case state&onceLockedBit != 0:
		return OnceInProgress
	case state&oncePoisonBit != 0:
		return OncePoisoned
	}
	return OnceNew
}

// String gives upstream's Debug text.
func (o *Once) String() string { return "Once { state: " + o.State().String() + " }" }

// CallOnce runs f if no call on o has completed, and waits for a run in
// progress on another thread. It panics if o is poisoned.
func (o *Once) CallOnce(f func()) {
	if o.state.Load() == onceDoneBit {
		return
	}
	o.callOnceSlow(false, func(OnceState) { f() })
}

// CallOnceForce is CallOnce that also runs on a poisoned o; f is told
// whether o was poisoned (OncePoisoned) or new (OnceNew).
func (o *Once) CallOnceForce(f func(OnceState)) {
	if o.state.Load() == onceDoneBit {
		return
	}
	o.callOnceSlow(true, f)
}

// callOnceSlow is upstream's call_once_slow.
func (o *Once) callOnceSlow(ignorePoison bool, f func(OnceState)) {
	var spin SpinWait
	state := o.state.Load()
	for {
		// If another thread called the closure, we're done.
		if state&onceDoneBit != 0 {
			return
		}

		// If the state has been poisoned and we aren't forcing, panic.
		if state&oncePoisonBit != 0 && !ignorePoison {
			panic("Once instance has previously been poisoned")
		}

		// Grab the lock if it isn't locked, even if there is a queue on
		// it. We also clear the poison bit since we are going to try
		// running the closure again.
		if state&onceLockedBit == 0 {
			if o.state.CompareAndSwap(state, (state|onceLockedBit)&^oncePoisonBit) {
				break
			}
			state = o.state.Load()
			continue
		}

		// If there is no queue, try spinning a few times.
		if state&onceParkedBit == 0 && spin.Spin() {
			state = o.state.Load()
			continue
		}

		// Set the parked bit.
		if state&onceParkedBit == 0 {
			if !o.state.CompareAndSwap(state, state|onceParkedBit) {
				state = o.state.Load()
				continue
			}
		}

		// Window: PARKED set, not yet queued.
		chaos.Point("lot.once.parkedbit")

		// Park our thread until we are woken up by the thread that owns
		// the lock. validate under the bucket lock: the owner's final swap
		// clears LOCKED|PARKED before its UnparkAll takes this lock.
		Park(unsafe.Pointer(o),
			func() bool { return o.state.Load() == onceLockedBit|onceParkedBit },
			nil, nil, DefaultParkToken, time.Time{})

		// Loop back and check if the done bit was set.
		spin.Reset()
		state = o.state.Load()
	}

	// At this point we have the lock, so run the closure. Make sure we
	// properly clean up if the closure panics (upstream's PanicGuard): the
	// deferred function runs while the panic unwinds, and the panic then
	// goes on.
	completed := false
	defer func() {
		if completed {
			return
		}
		// Mark the state as poisoned, unlock it and unpark all threads.
		if o.state.Swap(oncePoisonBit)&onceParkedBit != 0 {
			UnparkAll(unsafe.Pointer(o), DefaultUnparkToken)
		}
	}()
	onceState := OnceNew
	if state&oncePoisonBit != 0 {
		onceState = OncePoisoned
	}
	f(onceState)
	completed = true

	// Now unlock the state, set the done bit and unpark all threads.
	if o.state.Swap(onceDoneBit)&onceParkedBit != 0 {
		UnparkAll(unsafe.Pointer(o), DefaultUnparkToken)
	}
}
