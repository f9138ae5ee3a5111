package parkers

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// waitAddressParker is parking_lot's windows/waitaddress.rs: a usize key,
// 1 = park, 0 = unparked, slept on with WaitOnAddress(key, &1). Like the
// futex parker, WaitOnAddress compares the word before sleeping and
// WakeByAddressSingle pairs with that comparison, so a clear between the
// owner's check and its sleep is never lost.
type waitAddressParker struct {
	key atomic.Uintptr
	api waitAddressAPI

	blocked, immediate uint64 // owner-only; see WaitCounts
}

type waitAddressUnpark waitAddressParker

// waCompare is the value WaitOnAddress compares the key with.
var waCompare uintptr = 1

func newWaitAddressParker(api waitAddressAPI) *waitAddressParker {
	return &waitAddressParker{api: api}
}

// PreparePark: a sequentially consistent store, ordered before the caller's
// later loads; a waker's 0 after it makes WaitOnAddress(key, 1) return.
func (p *waitAddressParker) PreparePark()   { p.key.Store(1) }
func (p *waitAddressParker) TimedOut() bool { return p.key.Load() != 0 }

func (p *waitAddressParker) wait(ms uint32) {
	p.api.WaitOnAddress(unsafe.Pointer(&p.key), unsafe.Pointer(&waCompare), unsafe.Sizeof(waCompare), ms)
}

func (p *waitAddressParker) Park() {
	if p.key.Load() == 0 {
		p.immediate++
		return
	}
	p.blocked++
	for p.key.Load() != 0 {
		chaos.Point("waitaddress.park.before-wait")
		p.wait(winInfinite)
	}
}

func (p *waitAddressParker) ParkUntil(deadline time.Time) bool {
	if p.key.Load() == 0 {
		p.immediate++
		return true
	}
	p.blocked++
	for p.key.Load() != 0 {
		rem := time.Until(deadline)
		if rem <= 0 {
			chaos.Point("waitaddress.park-until.timed-out")
			return false
		}
		chaos.Point("waitaddress.park-until.before-wait")
		p.wait(waTimeoutMs(rem))
	}
	return true
}

// waTimeoutMs is waitaddress.rs's conversion: milliseconds rounded up, and
// anything that does not fit a DWORD (or is INFINITE itself) waits forever.
func waTimeoutMs(d time.Duration) uint32 {
	ms := int64(d / time.Millisecond)
	if d%time.Millisecond != 0 {
		ms++
	}
	if ms >= winInfinite {
		return winInfinite
	}
	return uint32(ms)
}

func (p *waitAddressParker) UnparkLock() UnparkHandle {
	p.key.Store(0)
	return (*waitAddressUnpark)(p)
}

func (h *waitAddressUnpark) Unpark() {
	chaos.Point("waitaddress.unpark.before-wake")
	h.api.WakeByAddressSingle(unsafe.Pointer(&h.key))
}

// WaitCounts implements WaitCounter: per park call, already unparked
// (immediate) or not (blocked; WaitOnAddress does not report whether it
// slept).
func (p *waitAddressParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
