//go:build linux

package parkers

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/futex"
	"github.com/parkbench/parkbench/internal/inject"
)

// Rust std's futex thread parker (library/std/src/sys/sync/thread_parking/
// futex.rs), the parker behind thread::park on Linux.
const (
	stdParked   int32 = -1 // std: State::MAX as u32, the same 32 bits
	stdEmpty    int32 = 0
	stdNotified int32 = 1
)

// stdParker: only Unpark releases and only the parking side acquires; Go's
// atomics are sequentially consistent, stronger than std's Release/Acquire.
//
// Missed-wakeup argument: the owner goes EMPTY->PARKED with its decrement
// and then sleeps with FUTEX_WAIT(expected PARKED). An Unpark swaps in
// NOTIFIED; if it saw PARKED it wakes. Either the swap lands before the
// kernel's comparison (the wait returns EAGAIN at once) or the owner is on
// the futex queue and the wake reaches it. An Unpark that saw EMPTY leaves
// the token, which the decrement of the next park consumes.
type stdParker struct {
	state atomic.Int32

	blocked, immediate uint64 // owner-only; see WaitCounts
}

func newStd() TokenParker { return &stdParker{} }

// futexWait is std's Linux futex_wait: return at once if the word is not
// expected; FUTEX_WAIT_BITSET|PRIVATE with an absolute CLOCK_MONOTONIC
// deadline (nil: none); retry on EINTR; false only on ETIMEDOUT.
func (p *stdParker) futexWait(expected int32, abs *unix.Timespec) bool {
	for {
		if p.state.Load() != expected {
			p.immediate++
			return true
		}
		switch e := futex.WaitAbs(&p.state, expected, abs); e {
		case unix.EINTR:
			continue
		case unix.ETIMEDOUT:
			p.blocked++
			return false
		case unix.EAGAIN:
			p.immediate++
			return true
		case 0:
			p.blocked++
			return true
		default:
			panic("parkers: std futex wait: " + e.Error())
		}
	}
}

// Park consumes the token, sleeping until there is one.
func (p *stdParker) Park() {
	// NOTIFIED->EMPTY (return) or EMPTY->PARKED.
	if p.state.Add(-1) == stdNotified-1 {
		p.immediate++
		return
	}
	for {
		chaos.Point("std.park.before-wait")
		p.futexWait(stdParked, nil)
		if p.state.CompareAndSwap(stdNotified, stdEmpty) {
			return
		}
		// Spurious wakeup: sleep again.
	}
}

// ParkDeadline is std's park_timeout: the same decrement, ONE futex wait,
// then swap EMPTY. Like std it cannot tell a timeout from a spurious wakeup
// and does not loop: it may return before the deadline (rare: EINTR is
// retried inside the wait, and only a stray FUTEX_WAKE on this word could
// cause it). It reports whether it consumed a token, which std's API does
// not expose.
func (p *stdParker) ParkDeadline(deadline time.Time) bool {
	if p.state.Add(-1) == stdNotified-1 {
		p.immediate++
		return true
	}
	ts, ok := monoAbs(deadline)
	chaos.Point("std.park-timeout.before-wait")
	if ok {
		p.futexWait(stdParked, &ts)
	} else {
		p.futexWait(stdParked, nil) // deadline overflowed: no timeout, as std
	}
	chaos.Point("std.park-timeout.after-wait")
	// A swap, not a store: it must read the latest Unpark's NOTIFIED to
	// synchronise with it.
	return p.state.Swap(stdEmpty) == stdNotified
}

// Unpark leaves the token and wakes the owner if it was PARKED. Even
// NOTIFIED->NOTIFIED writes, so every Unpark is ordered before the park that
// consumes the token.
func (p *stdParker) Unpark() {
	if p.state.Swap(stdNotified) == stdParked {
		chaos.Point("std.unpark.before-wake")
		inject.Wake(inject.Std) // -tags parkinject only: a slower wake path
		futex.Wake(&p.state, 1)
	}
}

// WaitCounts implements WaitCounter: per park, a token already there or a
// kernel wait that returned EAGAIN counts immediate; a wait that slept
// (woken or timed out) counts blocked.
func (p *stdParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }

func init() { provide(NameStd, nil, nil, newStd) }
