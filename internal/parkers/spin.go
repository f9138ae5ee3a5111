package parkers

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// spinParker is a ThreadParker that never sleeps: the owner polls a flag.
// It is upstream's generic.rs (an AtomicBool "should park", park loops on
// it, unpark_lock clears it, the handle's unpark is a no-op), with the
// per-iteration wait action as a parameter:
//
//	spin, generic          CPURelax(1) (generic.rs: core::hint::spin_loop)
//	yield, generic-yield   Yield (sched_yield; the later generic.rs: thread_yield)
//	gosched                runtime.Gosched (yield the P to other goroutines)
//
// No wakeup can be missed: the owner keeps reading the flag until it sees
// the waker's store.
type spinParker struct {
	shouldPark atomic.Bool
	relax      func()
}

// spinUnpark is the no-op handle (upstream: "UnparkHandle::unpark does
// nothing"); one shared value, so UnparkLock does not allocate.
type spinUnpark struct{}

func (spinUnpark) Unpark() {}

func relaxOnce() { CPURelax(1) }

func newSpin() ThreadParker    { return &spinParker{relax: relaxOnce} }
func newYield() ThreadParker   { return &spinParker{relax: Yield} }
func newGosched() ThreadParker { return &spinParker{relax: runtime.Gosched} }

// PreparePark: a sequentially consistent store, ordered before the caller's
// later loads, so a waker's false (after a flag the caller then missed)
// lands after this true and ends the spin.
func (p *spinParker) PreparePark()   { p.shouldPark.Store(true) }
func (p *spinParker) TimedOut() bool { return p.shouldPark.Load() }

func (p *spinParker) Park() {
	for p.shouldPark.Load() {
		chaos.Point("spin.park.before-relax")
		p.relax()
	}
}

// ParkUntil polls the flag and the monotonic clock. Reading the clock each
// turn is what generic.rs does too (Instant::now() in the loop).
func (p *spinParker) ParkUntil(deadline time.Time) bool {
	for p.shouldPark.Load() {
		if !time.Now().Before(deadline) {
			chaos.Point("spin.park-until.timed-out")
			return false
		}
		p.relax()
	}
	return true
}

func (p *spinParker) UnparkLock() UnparkHandle {
	chaos.Point("spin.unpark-lock.before-mark")
	p.shouldPark.Store(false)
	return spinUnpark{}
}

func init() {
	provide(NameSpin, nil, newSpin, nil)
	provide(NameYield, nil, newYield, nil)
	provide(NameGosched, nil, newGosched, nil)
	provide(NameGeneric, nil, newSpin, nil)
	provide(NameGenericYield, nil, newYield, nil)
}
