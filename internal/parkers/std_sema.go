package parkers

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// Rust std's darwin thread parker (rust-lang/rust library/std/src/sys/sync/
// thread_parking/darwin.rs at 0c8b1106): std's three-state word on a libdispatch
// semaphore, the parker behind thread::park on macOS. The state machine is
// here, OS-independent, behind stdSemaphore, so it runs on Linux
// (std_sema_test.go, with a fake semaphore that checks std's invariant);
// darwin_cgo.go gives it dispatch_semaphore_t. The states are darwin.rs:35-37
// (an i8 there; Go has no 8-bit atomics, the int32 holds the same values).
const (
	stdSemaParked   int32 = -1
	stdSemaEmpty    int32 = 0
	stdSemaNotified int32 = 1
)

// stdSemaphore is the part of dispatch_semaphore_t darwin.rs uses.
type stdSemaphore interface {
	// wait decrements the count, sleeping until it is positive, for at
	// most timeout (forever if timeout < 0: DISPATCH_TIME_FOREVER). It
	// reports false if it timed out without decrementing (the return
	// value != 0 of dispatch_semaphore_wait).
	wait(timeout time.Duration) bool
	// signal increments the count, waking one waiter.
	signal()
}

// stdSemaParker is darwin.rs's Parker.
//
// Invariant (darwin.rs:59-61): the semaphore's count is 0 whenever the owner
// is not inside park, because unpark signals only after it swapped PARKED
// out, i.e. once per park that announced itself, and that park consumes the
// signal before it returns (the timeout path included: see ParkDeadline).
//
// Missed-wakeup argument: the owner announces PARKED (EMPTY->PARKED by the
// decrement) before it waits; an unpark swaps NOTIFIED in and signals only
// if it swapped PARKED out. A semaphore keeps the signal, so a signal that
// comes before the owner's wait is not lost: the wait returns at once. An
// unpark that finds EMPTY leaves NOTIFIED, which the next park's decrement
// consumes without waiting.
type stdSemaParker struct {
	state atomic.Int32
	sema  stdSemaphore

	blocked, immediate uint64 // owner-only; see WaitCounts
}

func newStdSema(s stdSemaphore) *stdSemaParker { return &stdSemaParker{sema: s} }

// Park is darwin.rs park (:58-82).
func (p *stdSemaParker) Park() {
	// NOTIFIED->EMPTY (return at once) or EMPTY->PARKED.
	if p.state.Add(-1) == stdSemaNotified-1 {
		p.immediate++
		return
	}
	p.blocked++
	chaos.Point("std.park.before-wait")
	// An unpark may signal from here on; if it is faster than us the
	// wait decrements at once. Loop until the count really was
	// decremented, as upstream does in case the wait "timed out".
	for !p.sema.wait(-1) {
	}
	// Woken for sure; the swap (not a store) reads the unpark's NOTIFIED
	// so the park synchronises with it (upstream: Acquire).
	p.state.Swap(stdSemaEmpty)
}

// ParkDeadline is darwin.rs park_timeout (:85-108): one timed wait of the
// remaining time (dispatch_time(DISPATCH_TIME_NOW, nanos)), then swap EMPTY.
// Like std it does not loop: it may return before the deadline only if the
// semaphore's own timer does. It reports whether it consumed a token, which
// std's API does not expose.
func (p *stdSemaParker) ParkDeadline(deadline time.Time) bool {
	if p.state.Add(-1) == stdSemaNotified-1 {
		p.immediate++
		return true
	}
	p.blocked++
	rem := time.Until(deadline)
	if rem < 0 {
		rem = 0 // upstream: a Duration cannot be negative
	}
	chaos.Point("std.park-timeout.before-wait")
	timedOut := !p.sema.wait(rem)
	chaos.Point("std.park-timeout.after-wait")
	state := p.state.Swap(stdSemaEmpty)
	if state == stdSemaNotified && timedOut {
		// An unpark swapped PARKED out after our wait timed out and is
		// about to signal (or has): take that signal, or the count
		// would stay 1 and break the invariant for the next park.
		for !p.sema.wait(-1) {
		}
	}
	return state == stdSemaNotified
}

// Unpark is darwin.rs unpark (:111-119): swap NOTIFIED, signal only if the
// owner announced PARKED.
func (p *stdSemaParker) Unpark() {
	if p.state.Swap(stdSemaNotified) == stdSemaParked {
		chaos.Point("std.unpark.before-wake")
		p.sema.signal()
	}
}

// WaitCounts implements WaitCounter: per park, a token already there
// (immediate) or a semaphore wait (blocked; dispatch does not say whether
// it slept).
func (p *stdSemaParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
