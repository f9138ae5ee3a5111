package parkers

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The conformance suite runs every backend available here through the
// ThreadParker and TokenParker contracts. Every participant is a goroutine
// locked to its OS thread. No test asserts that anything is fast: timing
// assertions are only "not before the deadline", and upper bounds are the
// watchdog.

// pingPongCycles is the number of sleep/wake round trips per backend. The
// non-sleeping backends do fewer: on a loaded 2-vCPU machine a spinning
// thread whose partner is descheduled burns a whole time slice per turn.
func pingPongCycles(b Backend) int {
	if testing.Short() {
		return 1000
	}
	if !b.Sleeps {
		return 1000
	}
	return 10000
}

// threadBackends are the registered thread backends (those that cannot run
// here are skipped in each subtest, with the reason), plus the fake-API
// Windows parkers: their state machines run here against fakes of
// WaitOnAddress and keyed events.
func threadBackends(t *testing.T) []Backend {
	var out []Backend
	for _, b := range All() {
		if b.Name == NameWasm {
			continue // panics by design: TestWasmPanics
		}
		if b.NewThread != nil || !b.Available() && (b.Kind == KindThread || b.Kind == KindGoroutine) {
			out = append(out, b)
		}
	}
	out = append(out,
		Backend{Name: "fake-waitonaddress", Sleeps: true, NewThread: func() ThreadParker { return newWaitAddressParker(newFakeWaitAddress()) }},
		Backend{Name: "fake-keyedevent", Sleeps: true, NewThread: func() ThreadParker { return newKeyedEventParker(newFakeKeyedEvent()) }},
	)
	return append(out, extraThreadBackends...)
}

// extraThreadBackends and extraTokenBackends are test-only backends that
// other test files add from init: OS-independent state machines on fakes
// (std_sema_test.go, addrwait_test.go).
var extraThreadBackends, extraTokenBackends []Backend

func tokenBackends(t *testing.T) []Backend {
	var out []Backend
	for _, b := range All() {
		if b.NewToken != nil || b.Kind == KindToken {
			out = append(out, b)
		}
	}
	return append(out, extraTokenBackends...)
}

// skipUnavailable skips a backend that does not run here, saying why.
func skipUnavailable(t *testing.T, b Backend) {
	t.Helper()
	if why := b.Why(); why != "" {
		t.Skip(why)
	}
	if runtime.GOARCH != "wasm" {
		return
	}
	// wasm: one thread, and goroutines are never preempted.
	if b.Name == NameDefault && DefaultName() == NameWasm {
		t.Skip("default is the wasm parker here, which panics by design (TestWasmPanics)")
	}
	if !b.Sleeps {
		t.Skip("wasm runs one thread without preemption: a spinning waiter never lets its partner run (livelock)")
	}
}

// rendezvous reports whether the backend's wake blocks until the target
// waits (NT keyed events): its Unpark cannot complete before the Park, so
// the "wake first" tests let the Park start before waiting for the waker.
func rendezvous(b Backend) bool { return b.Name == NameKeyedEvent || b.Name == "fake-keyedevent" }

func TestThreadUnparkBeforePark(t *testing.T) {
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewThread()
			for _, timed := range []bool{false, true} {
				// Mark and wake (on another thread, as in the lot)
				// before the park: the park returns at once.
				p.PreparePark()
				waker := onThread(func() { p.UnparkLock().Unpark() })
				if !rendezvous(b) {
					wait(t, waker, "waker")
				}
				wait(t, onThread(func() {
					if timed {
						if !p.ParkUntil(time.Now().Add(time.Hour)) {
							panic("ParkUntil after unpark reported a timeout")
						}
					} else {
						p.Park()
					}
				}), "park after UnparkLock+Unpark")
				wait(t, waker, "waker")
			}
		})
	}
}

// The lot's real order: the waker marks under the queue lock, the owner may
// start its park, the wake comes later.
func TestThreadMarkThenParkThenWake(t *testing.T) {
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewThread()
			prepared, marked := make(chan struct{}), make(chan struct{})
			owner := onThread(func() {
				p.PreparePark()
				close(prepared)
				<-marked
				p.Park()
			})
			waker := onThread(func() {
				<-prepared
				h := p.UnparkLock()
				close(marked)
				time.Sleep(2 * time.Millisecond)
				h.Unpark()
			})
			wait(t, waker, "waker")
			wait(t, owner, "owner Park")
		})
	}
}

func TestThreadParkUntilTimesOut(t *testing.T) {
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewThread()
			wait(t, onThread(func() {
				p.PreparePark()
				if p.ParkUntil(time.Now().Add(-time.Second)) {
					panic("past deadline: ParkUntil reported unparked")
				}
				if !p.TimedOut() {
					panic("past deadline: TimedOut false with no unpark")
				}
				const d = 20 * time.Millisecond
				p.PreparePark()
				start := time.Now()
				deadline := start.Add(d)
				if p.ParkUntil(deadline) {
					panic("ParkUntil(+20ms) reported unparked")
				}
				if now := time.Now(); now.Before(deadline) {
					panic("ParkUntil returned " + deadline.Sub(now).String() + " before its deadline")
				}
				if !p.TimedOut() {
					panic("TimedOut false with no unpark")
				}
			}), "ParkUntil timing out")
		})
	}
}

// TimedOut after an UnparkLock that raced in after the timeout reports
// false: the waker already dequeued the thread. The waker's Unpark runs
// concurrently with TimedOut, as in the lot (pthread's TimedOut waits for
// it on the parker mutex).
func TestThreadTimedOutAfterLateUnpark(t *testing.T) {
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewThread()
			timedOut, marked := make(chan struct{}), make(chan struct{})
			var sawTimedOut atomic.Bool
			owner := onThread(func() {
				p.PreparePark()
				if p.ParkUntil(time.Now()) {
					panic("ParkUntil(now) reported unparked")
				}
				close(timedOut)
				<-marked
				sawTimedOut.Store(p.TimedOut())
			})
			waker := onThread(func() {
				<-timedOut
				h := p.UnparkLock()
				close(marked)
				time.Sleep(time.Millisecond)
				h.Unpark()
			})
			wait(t, waker, "waker")
			wait(t, owner, "owner")
			if sawTimedOut.Load() {
				t.Fatal("TimedOut() = true after a late UnparkLock")
			}
		})
	}
}

// The lot's protocol with a mutex as the queue lock and very short
// timeouts, so timeouts and unparks race: whichever side wins, owner and
// waker must agree, and nothing may hang.
func TestThreadTimeoutRacesUnpark(t *testing.T) {
	rounds := 400
	if testing.Short() {
		rounds = 100
	}
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewThread()
			var (
				q        sync.Mutex // the "queue lock"
				queued   bool
				progress atomic.Int64
				round    = make(chan struct{})
				ack      = make(chan bool)
			)
			waker := onThread(func() {
				rng := rand.New(rand.NewPCG(1, 2))
				for range round {
					if n := rng.IntN(4); n > 0 {
						time.Sleep(time.Duration(rng.IntN(40*n)) * time.Microsecond)
					}
					var h UnparkHandle
					q.Lock()
					if queued {
						queued = false
						h = p.UnparkLock()
					}
					q.Unlock()
					if h != nil {
						h.Unpark()
					}
					ack <- h != nil
				}
			})
			owner := onThread(func() {
				defer close(round)
				for i := 0; i < rounds; i++ {
					q.Lock()
					p.PreparePark()
					queued = true
					q.Unlock()
					round <- struct{}{}
					unparked := p.ParkUntil(time.Now().Add(time.Duration(i%50) * time.Microsecond))
					if !unparked {
						q.Lock()
						if p.TimedOut() {
							if !queued {
								panic("TimedOut true but the waker dequeued us")
							}
							queued = false
						} else {
							unparked = true
						}
						q.Unlock()
					}
					if woke := <-ack; woke != unparked {
						panic("owner and waker disagree on whether the thread was unparked")
					}
					progress.Add(1)
				}
			})
			watchProgress(t, owner, &progress, "timeout/unpark race")
			wait(t, waker, "waker")
		})
	}
}

// Ping-pong between two threads: each marks and wakes the other, then
// parks. A lost wakeup stalls it; the watchdog fails the test at once.
func TestThreadPingPong(t *testing.T) {
	for _, b := range threadBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			n := pingPongCycles(b)
			pa, pb := b.NewThread(), b.NewThread()
			var progress atomic.Int64
			ready := make(chan struct{})
			bDone := onThread(func() {
				pb.PreparePark()
				close(ready)
				for i := 0; i < n; i++ {
					pb.Park()
					pb.PreparePark()
					pa.UnparkLock().Unpark()
				}
			})
			aDone := onThread(func() {
				<-ready
				for i := 0; i < n; i++ {
					pa.PreparePark()
					pb.UnparkLock().Unpark()
					pa.Park()
					progress.Add(1)
				}
			})
			watchProgress(t, aDone, &progress, "thread ping-pong")
			wait(t, bDone, "partner")
			if c, ok := pa.(WaitCounter); ok {
				bl, im := c.WaitCounts()
				t.Logf("%d cycles; A's waits: %d blocked, %d immediate", n, bl, im)
			}
		})
	}
}

func TestTokenUnparkBeforePark(t *testing.T) {
	for _, b := range tokenBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewToken()
			wait(t, onThread(func() {
				p.Unpark()
				p.Park()
				// Tokens do not accumulate: two unparks, one token.
				p.Unpark()
				p.Unpark()
				if !p.ParkDeadline(time.Now().Add(time.Hour)) {
					panic("ParkDeadline with a token pending reported no token")
				}
				if p.ParkDeadline(time.Now().Add(20 * time.Millisecond)) {
					panic("second ParkDeadline consumed a second token")
				}
			}), "token unpark before park")
		})
	}
}

func TestTokenParkDeadlineTimesOut(t *testing.T) {
	for _, b := range tokenBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewToken()
			wait(t, onThread(func() {
				if p.ParkDeadline(time.Now().Add(-time.Second)) {
					panic("past deadline: got a token")
				}
				deadline := time.Now().Add(20 * time.Millisecond)
				if p.ParkDeadline(deadline) {
					panic("ParkDeadline(+20ms) got a token")
				}
				// std on Windows makes ONE relative wait, timed by the
				// OS's clock rather than Go's, and returns after it
				// (windows7.rs park_timeout; std allows a spurious
				// return), so it may end a little before the deadline.
				early := runtime.GOOS == "windows" && b.Name == NameStd
				if now := time.Now(); now.Before(deadline) && !early {
					panic("ParkDeadline returned " + deadline.Sub(now).String() + " before its deadline")
				}
			}), "token ParkDeadline timing out")
		})
	}
}

func TestTokenUnparkFromOtherThread(t *testing.T) {
	for _, b := range tokenBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			p := b.NewToken()
			owner := onThread(func() {
				if !p.ParkDeadline(time.Now().Add(time.Hour)) {
					panic("woken without a token")
				}
			})
			waker := onThread(func() {
				time.Sleep(5 * time.Millisecond)
				p.Unpark()
			})
			wait(t, waker, "waker")
			wait(t, owner, "owner")
		})
	}
}

func TestTokenPingPong(t *testing.T) {
	for _, b := range tokenBackends(t) {
		t.Run(b.Name, func(t *testing.T) {
			skipUnavailable(t, b)
			n := pingPongCycles(b)
			pa, pb := b.NewToken(), b.NewToken()
			var progress atomic.Int64
			bDone := onThread(func() {
				for i := 0; i < n; i++ {
					pb.Park()
					pa.Unpark()
				}
			})
			aDone := onThread(func() {
				for i := 0; i < n; i++ {
					pb.Unpark()
					pa.Park()
					progress.Add(1)
				}
			})
			watchProgress(t, aDone, &progress, "token ping-pong")
			wait(t, bDone, "partner")
		})
	}
}

func TestWasmPanics(t *testing.T) {
	p := newWasm()
	for name, f := range map[string]func(){
		"PreparePark": p.PreparePark,
		"Park":        p.Park,
		"ParkUntil":   func() { p.ParkUntil(time.Now()) },
		"TimedOut":    func() { p.TimedOut() },
		"UnparkLock":  func() { p.UnparkLock() },
	} {
		func() {
			defer func() {
				r, _ := recover().(string)
				if !strings.Contains(r, "Parking not supported on this platform") || !strings.Contains(r, "would block forever") {
					t.Errorf("%s: panic %q, want upstream's message", name, r)
				}
			}()
			f()
		}()
	}
}

func TestRegistry(t *testing.T) {
	want := []string{NameDefault, NameFutex, NameFutexRaw, NameFutexPlain, NameFutexSpin, NameFutexCgo, NameFutexRaw1ms, NamePthread, NamePthreadWallclock, NamePthreadRelative,
		NameStd, NameCrossbeam, NameWaitOnAddress, NameKeyedEvent, NameUlock, NameOSSync, NameWasm,
		NameSpin, NameYield, NameGosched, NameGeneric, NameGenericYield, NameChan, NameCond}
	got := Names()
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	for _, b := range All() {
		if b.Summary == "" {
			t.Errorf("%s: no Summary", b.Name)
		}
		if b.Available() && b.NewThread == nil && b.NewToken == nil {
			t.Errorf("%s: available but no constructor", b.Name)
		}
		if b.Kind == KindGoroutine && !strings.Contains(b.Summary, "goroutine-level") {
			t.Errorf("%s: goroutine backend not labelled goroutine-level", b.Name)
		}
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), NameFutex) {
		t.Errorf("Lookup(nope) = %v, want the list of names", err)
	}
	d := Default()
	if d.Name != DefaultName() || d.Name == NameDefault {
		t.Errorf("Default() = %q, DefaultName() = %q", d.Name, DefaultName())
	}
}
