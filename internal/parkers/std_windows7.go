package parkers

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// stdWinParker is Rust std's Windows thread parker (std
// sys/sync/thread_parking/windows7.rs): the futex parker's three states on a
// state byte, slept on with WaitOnAddress(state, &PARKED, 1) and woken with
// WakeByAddressSingle; where WaitOnAddress does not exist (std's win7
// target), NT keyed events on the parker's address instead. The logic is
// OS-independent (tested with fakes anywhere); std_winapi_windows.go supplies the
// APIs.
//
// std's state is an i8. Go has no 8-bit atomics, so the state is an int32
// whose lowest-addressed byte (every Go Windows target is little-endian)
// holds the same i8 value: -1 is 0xFF, 0 and 1 themselves. WaitOnAddress
// compares that byte, as std's size 1 does; the other three bytes are
// 0xFF for PARKED and 0 otherwise, and never read by the kernel.
//
// Missed wakeup, WaitOnAddress: as the futex parker. The owner goes
// EMPTY->PARKED with its decrement, then sleeps only while the byte is
// still PARKED; an Unpark swaps in NOTIFIED and wakes if it saw PARKED.
// WaitOnAddress compares and sleeps atomically with respect to
// WakeByAddressSingle, so the swap is either seen by the comparison or the
// wake reaches the sleeper.
//
// Keyed events (a rendezvous: a release blocks until a wait takes it): only
// an Unpark that swapped out PARKED releases, and PARKED is written only by
// the owner's decrement inside Park, so there is exactly one owner wait per
// release: park waits unconditionally; park_timeout, if its wait timed out
// but the state is NOTIFIED, waits once more to take the release, or the
// unparker blocks for ever. A self-unpark (Unpark then Park on one thread)
// finds EMPTY and sends no release.
type stdWinParker struct {
	// timeout is first so the LARGE_INTEGER NT reads is 8-byte aligned on
	// 32-bit Windows too; owner-only.
	timeout int64
	state   atomic.Int32
	wa      waitAddressAPI // nil: keyed events
	ke      keyedEventAPI

	blocked, immediate uint64 // owner-only; see WaitCounts
}

// std's states (windows7.rs), as in its futex parker.
const (
	swParked   int32 = -1
	swEmpty    int32 = 0
	swNotified int32 = 1
)

// stdWinParkedByte is what WaitOnAddress compares the state's byte with.
var stdWinParkedByte = uint8(0xFF) // int8(-1), std's PARKED

func newStdWin(c *winChoice) *stdWinParker { return &stdWinParker{wa: c.wa, ke: c.ke} }

func (p *stdWinParker) addr() unsafe.Pointer { return unsafe.Pointer(&p.state) }

func (p *stdWinParker) waitOnAddress(ms uint32) {
	p.wa.WaitOnAddress(p.addr(), unsafe.Pointer(&stdWinParkedByte), 1, ms)
}

// Park: NOTIFIED->EMPTY and return, or EMPTY->PARKED and wait.
func (p *stdWinParker) Park() {
	if p.state.Add(-1) == swEmpty {
		p.immediate++
		return
	}
	p.blocked++
	if p.wa == nil {
		chaos.Point("stdwin.keyed.park.before-wait")
		p.ke.Wait(p.addr(), nil)
		// A swap, not a store: it reads Unpark's NOTIFIED, to
		// synchronise with it.
		p.state.Swap(swEmpty)
		return
	}
	for {
		chaos.Point("stdwin.park.before-wait")
		p.waitOnAddress(winInfinite)
		if p.state.CompareAndSwap(swNotified, swEmpty) {
			return
		}
		// Spurious wakeup: wait again.
	}
}

// ParkDeadline is std's park_timeout: ONE wait (std cannot tell a
// timeout from a spurious wakeup and returns either way), then swap EMPTY.
// It reports whether it consumed a token, which std's API does not expose.
func (p *stdWinParker) ParkDeadline(deadline time.Time) bool {
	if p.state.Add(-1) == swEmpty {
		p.immediate++
		return true
	}
	p.blocked++
	rem := time.Until(deadline)
	if p.wa != nil {
		ms := uint32(0)
		if rem > 0 {
			ms = waTimeoutMs(rem) // std's dur2timeout: ms rounded up, INFINITE beyond a DWORD
		}
		chaos.Point("stdwin.park-timeout.before-wait")
		p.waitOnAddress(ms)
		return p.state.Swap(swEmpty) == swNotified
	}
	// std: -(nanos+99)/100 (negative: relative), i64::MIN if it does not
	// fit (a relative wait of some 29,000 years).
	p.timeout = -1 << 63
	if rem <= 0 {
		p.timeout = 0
	} else if v, ok := ntRelativeTimeout(rem); ok {
		p.timeout = v
	}
	chaos.Point("stdwin.keyed.park-timeout.before-wait")
	unparked := p.ke.Wait(p.addr(), &p.timeout) == statusSuccess
	prev := p.state.Swap(swEmpty)
	if !unparked && prev == swNotified {
		// Timed out, but an Unpark swapped out PARKED meanwhile: its
		// release is coming (or blocked already): take it.
		chaos.Point("stdwin.keyed.park-timeout.take-release")
		p.ke.Wait(p.addr(), nil)
	}
	return prev == swNotified
}

// Unpark leaves the token and wakes the owner if it was PARKED. Even
// NOTIFIED->NOTIFIED writes, so every Unpark is ordered before the park
// that consumes the token.
func (p *stdWinParker) Unpark() {
	if p.state.Swap(swNotified) != swParked {
		return
	}
	chaos.Point("stdwin.unpark.before-wake")
	if p.wa == nil {
		p.ke.Release(p.addr())
		return
	}
	p.wa.WakeByAddressSingle(p.addr())
}

// WaitCounts implements WaitCounter: per park, a token already there
// counts immediate; a park that went to wait counts blocked (WaitOnAddress
// does not say whether it slept).
func (p *stdWinParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
