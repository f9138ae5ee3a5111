package parkers

import (
	"sync/atomic"
	"testing"
	"time"
)

// Rust std's Windows parker on the fake APIs (windows_choice_test.go), both paths:
// WaitOnAddress and the keyed-event fallback.

// stdWinReal adds the real APIs on Windows (windows_test.go).
var stdWinReal = map[string]func() (*stdWinParker, *fakeKeyedEvent){}

func stdWinFakes() map[string]func() (*stdWinParker, *fakeKeyedEvent) {
	m := map[string]func() (*stdWinParker, *fakeKeyedEvent){
		"waitonaddress": func() (*stdWinParker, *fakeKeyedEvent) {
			return newStdWin(&winChoice{wa: newFakeWaitAddress()}), nil
		},
		"keyedevent": func() (*stdWinParker, *fakeKeyedEvent) {
			f := newFakeKeyedEvent()
			return newStdWin(&winChoice{ke: f}), f
		},
	}
	for k, v := range stdWinReal {
		m[k] = v
	}
	return m
}

// An Unpark before the Park leaves the token (no wait, no release); the
// next ParkDeadline with no token times out.
func TestStdWindowsTokenAndTimeout(t *testing.T) {
	for name, mk := range stdWinFakes() {
		t.Run(name, func(t *testing.T) {
			p, f := mk()
			wait(t, onThread(func() {
				p.Unpark()
				p.Unpark() // tokens do not accumulate
				p.Park()
				if p.ParkDeadline(time.Now().Add(time.Millisecond)) {
					panic("ParkDeadline consumed a second token")
				}
			}), "self-unpark then park")
			if f != nil && f.releases.Load() != 0 {
				t.Errorf("%d releases; a self-unpark must send none", f.releases.Load())
			}
			if b, im := p.WaitCounts(); b != 1 || im != 1 {
				t.Errorf("WaitCounts = %d blocked, %d immediate; want 1, 1", b, im)
			}
		})
	}
}

// A ping-pong between two threads: every Unpark reaches its Park.
func TestStdWindowsPingPong(t *testing.T) {
	for name, mk := range stdWinFakes() {
		t.Run(name, func(t *testing.T) {
			a, _ := mk()
			b, _ := mk()
			const rounds = 2000
			var progress atomic.Int64
			done := onThread(func() {
				for i := 0; i < rounds; i++ {
					b.Unpark()
					if i%2 == 0 {
						a.Park()
					} else {
						for !a.ParkDeadline(time.Now().Add(time.Hour)) {
						}
					}
					progress.Add(1)
				}
			})
			go func() {
				for i := 0; i < rounds; i++ {
					b.Park()
					a.Unpark()
				}
			}()
			watchProgress(t, done, &progress, "std windows ping-pong")
		})
	}
}

// Keyed events: the timed wait times out while an Unpark swaps out PARKED
// and starts its release, which blocks until a wait takes it. park_timeout
// must take it (std windows7.rs: "we *just* missed an unpark()").
func TestStdWindowsKeyedTimedOutTakesRelease(t *testing.T) {
	f := newFakeKeyedEvent()
	p := newStdWin(&winChoice{ke: f})
	released := make(chan struct{})
	f.onTimedWait = func() {
		if p.state.Load() != swParked {
			panic("the timed wait began without PARKED")
		}
		go func() { p.Unpark(); close(released) }()
		for p.state.Load() != swNotified {
			time.Sleep(time.Millisecond)
		}
	}
	var got atomic.Bool
	wait(t, onThread(func() { got.Store(p.ParkDeadline(time.Now().Add(time.Hour))) }), "ParkDeadline")
	if !got.Load() {
		t.Error("ParkDeadline = false although the token was there")
	}
	select {
	case <-released:
	case <-time.After(watchdog):
		t.Fatal("the unparker is stuck in NtReleaseKeyedEvent")
	}
	if w, r := f.waits.Load(), f.releases.Load(); w != 1 || r != 1 {
		t.Errorf("%d waits took %d releases; want 1, 1", w, r)
	}
}
