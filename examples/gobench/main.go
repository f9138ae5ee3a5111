// Command gobench is parkbench with two implementations of its own, through
// the public package bench: a token parker on a one-slot channel and a
// test-and-test-and-set lock that yields, with sync.Cond as its condvar.
//
//	go run ./examples/gobench latency --quick --impl=chan-token,chan,futex
//	go run ./examples/gobench lock --quick --impl=tts-yield,sync,spin
//	go run ./examples/gobench herd --quick --impl=tts-yield,sync
package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/bench"
)

// chanToken is a token parker: the channel's one slot is the token, so a
// second Unpark before a Park finds it full and leaves nothing more.
type chanToken chan struct{}

func (c chanToken) Park() { <-c }

func (c chanToken) ParkDeadline(d time.Time) bool {
	t := time.NewTimer(time.Until(d))
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}

func (c chanToken) Unpark() {
	select {
	case c <- struct{}{}:
	default:
	}
}

// ttsYield is test-and-test-and-set, yielding the processor while taken.
type ttsYield struct{ w atomic.Int32 }

func (l *ttsYield) Lock() {
	for l.w.Load() != 0 || !l.w.CompareAndSwap(0, 1) {
		runtime.Gosched()
	}
}

func (l *ttsYield) Unlock() { l.w.Store(0) }

func main() {
	bench.Main(
		bench.Impl{Name: "chan-token", Summary: "example: a token parker on a one-slot channel (examples/gobench)", Sleeps: true,
			NewParker: func() bench.Parker { return make(chanToken, 1) }},
		bench.Impl{Name: "tts-yield", Summary: "example: TTAS lock yielding while taken, sync.Cond (examples/gobench)", Sleeps: false,
			NewLock: func() sync.Locker { return new(ttsYield) },
			NewCond: func(l sync.Locker) bench.Cond { return sync.NewCond(l) }},
	)
}
