//go:build !wasm

// On wasm every Park blocks forever by design (the default parker panics,
// as upstream's wasm.rs), so these examples, which park, are not built
// there; the wasm parker's panic has its own test.

package parkers_test

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/parkers"
)

// A ThreadParker from the registry, driven the way a caller without a queue
// lock drives it (the latency experiment does): the owner arms the parker,
// looks at its condition once more, and only then parks; the waker sets the
// condition, then unparks. PreparePark's store is ordered before the second
// look, so whichever way the two race, the owner wakes.
func ExampleLookup() {
	b, err := parkers.Lookup(parkers.NameFutex)
	if err != nil || !b.Available() {
		b = parkers.Default() // futex is Linux only
	}
	p := b.NewThread()

	var ready atomic.Bool
	done := make(chan bool)
	go func() {
		runtime.LockOSThread() // a parker belongs to one thread
		defer runtime.UnlockOSThread()
		for !ready.Load() {
			p.PreparePark()
			if !ready.Load() {
				p.Park() // returns once an UnparkLock followed PreparePark
			}
		}
		done <- true
	}()

	time.Sleep(10 * time.Millisecond) // let it park (either order works)
	ready.Store(true)                 // the condition first,
	p.UnparkLock().Unpark()           // then the wake (another thread than the owner)
	fmt.Println("woken:", <-done)
	// Output: woken: true
}

// The token parker (crossbeam's Parker): an Unpark before the Park leaves a
// token, and the Park consumes it at once; tokens do not accumulate.
func ExampleNewCrossbeam() {
	p := parkers.NewCrossbeam()
	u := p.Unparker()

	u.Unpark()
	u.Unpark()
	p.Park() // consumes the one token
	fmt.Println("second park got a token:", p.ParkTimeout(10*time.Millisecond))

	go func() {
		time.Sleep(10 * time.Millisecond)
		u.Clone().Unpark()
	}()
	p.Park() // until the goroutine's Unpark
	fmt.Println("unparked")
	// Output:
	// second park got a token: false
	// unparked
}
