package lot_test

import (
	"fmt"
	"runtime"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/lot"
)

// A Mutex guards a counter that four threads increment. As sync.Mutex,
// the zero value is unlocked.
func ExampleMutex() {
	var mu lot.Mutex
	counter := 0
	done := lot.NewWaitGroup()
	for i := 0; i < 4; i++ {
		h := done.Clone()
		go func() {
			defer h.Done()
			// The lot parks OS threads: its callers lock themselves to one.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for j := 0; j < 1000; j++ {
				mu.Lock()
				counter++
				mu.Unlock()
			}
		}()
	}
	done.Wait()
	fmt.Println(counter)
	// Output: 4000
}

// A Condvar waits for a condition guarded by a Mutex. There are no
// spurious wakeups, but the loop is still the rule: another thread may
// change the condition between the notify and the return of Wait.
func ExampleCondvar() {
	var mu lot.Mutex
	var cond lot.Condvar
	var queue []string

	go func() {
		for _, s := range []string{"park", "wake", "done"} {
			mu.Lock()
			queue = append(queue, s)
			mu.Unlock()
			cond.NotifyOne()
		}
	}()

	mu.Lock()
	for {
		for len(queue) == 0 {
			cond.Wait(&mu)
		}
		s := queue[0]
		queue = queue[1:]
		fmt.Println(s)
		if s == "done" {
			break
		}
	}
	mu.Unlock()
	// Output:
	// park
	// wake
	// done
}

// WaitFor bounds the wait; it reports whether the wait timed out, and the
// mutex is held again either way.
func ExampleCondvar_WaitFor() {
	var mu lot.Mutex
	var cond lot.Condvar
	mu.Lock()
	timedOut := cond.WaitFor(&mu, time.Millisecond)
	mu.Unlock()
	fmt.Println("timed out:", timedOut)
	// Output: timed out: true
}

// A WaitGroup is crossbeam's: a group of handles. Each worker gets its own
// handle with Clone and ends it with Done; Wait ends the caller's handle
// and returns once every handle is gone.
func ExampleWaitGroup() {
	wg := lot.NewWaitGroup()
	results := make([]int, 3)
	for i := range results {
		h := wg.Clone()
		go func() {
			defer h.Done()
			results[i] = i * i
		}()
	}
	wg.Wait()
	fmt.Println(results)
	// Output: [0 1 4]
}

// Park and UnparkOne are the parking lot itself: a thread parks in the
// queue of a key (any address the caller owns) if validate, run under the
// queue's lock, still says so; an unparker wakes the longest-parked thread
// on the key and may pass it a token.
func ExamplePark() {
	var event int // its address is the key
	key := unsafe.Pointer(&event)

	// validate returns false: nothing is queued, Park returns at once.
	r := lot.Park(key, func() bool { return false }, nil, nil, lot.DefaultParkToken, time.Time{})
	fmt.Println(r.Kind)

	woken := make(chan lot.ParkResult)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		// Sleeps until unparked (a zero deadline means no timeout).
		woken <- lot.Park(key, nil, nil, nil, lot.DefaultParkToken, time.Time{})
	}()

	// Unpark the thread once it is queued; the callback runs under the
	// queue's lock and picks the token the woken thread receives.
	for {
		res := lot.UnparkOne(key, func(res lot.UnparkResult) lot.UnparkToken { return 42 })
		if res.UnparkedThreads == 1 {
			break
		}
		runtime.Gosched() // not queued yet
	}
	r = <-woken
	fmt.Println(r.Kind, r.Token)
	// Output:
	// Invalid
	// Unparked 42
}
