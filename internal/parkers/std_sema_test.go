package parkers

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Rust std's darwin parker (std_sema.go) on a fake libdispatch semaphore, so
// its state machine executes on Linux: through the whole token conformance
// suite (extraTokenBackends) and the tests below. The fake checks std's
// invariant: the count never exceeds 1 (darwin.rs signals once per park
// that announced PARKED, and that park consumes it).

type fakeSema struct {
	mu      sync.Mutex
	count   int
	waiting bool          // the owner is in wait (darwin.rs has one waiter)
	ch      chan struct{} // hands a signal to the waiting owner
	timer   *time.Timer
	// onTimedWait, if set, runs inside a timed wait, which then reports a
	// timeout without decrementing: the test's window.
	onTimedWait func()
}

// newFakeSema allocates nothing after construction, like dispatch, so the
// allocation tests hold for it too.
func newFakeSema() *fakeSema {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &fakeSema{ch: make(chan struct{}, 1), timer: t}
}

func (s *fakeSema) signal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.waiting {
		s.waiting = false
		s.ch <- struct{}{}
		return
	}
	s.count++
	if s.count > 1 {
		panic("std darwin parker: semaphore count above 1: a signal was not consumed")
	}
}

func (s *fakeSema) wait(timeout time.Duration) bool {
	if timeout >= 0 && s.onTimedWait != nil {
		s.onTimedWait()
		return false
	}
	s.mu.Lock()
	if s.count > 0 {
		s.count--
		s.mu.Unlock()
		return true
	}
	if s.waiting {
		panic("fake semaphore: two waiters")
	}
	s.waiting = true
	s.mu.Unlock()
	if timeout < 0 {
		<-s.ch
		return true
	}
	s.timer.Reset(timeout)
	defer s.timer.Stop()
	select {
	case <-s.ch:
		return true
	case <-s.timer.C:
	}
	s.mu.Lock()
	if s.waiting {
		s.waiting = false
		s.mu.Unlock()
		return false
	}
	s.mu.Unlock()
	<-s.ch // signalled as the timer fired: the count was decremented
	return true
}

func (s *fakeSema) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count == 0 && !s.waiting
}

func newFakeStdDarwin() TokenParker { return newStdSema(newFakeSema()) }

func init() {
	extraTokenBackends = append(extraTokenBackends, Backend{
		Name: "fake-std-darwin", Kind: KindToken, Sleeps: true, NewToken: newFakeStdDarwin,
	})
	extraThreadBackends = append(extraThreadBackends, Backend{
		Name: "fake-std-darwin", Sleeps: true, NewThread: ThreadFromToken(newFakeStdDarwin),
	})
}

// TestStdSemaLateSignalAfterTimeout is darwin.rs park_timeout's rule: an
// unpark that swaps PARKED out just as the timed wait times out will
// signal; the park must take that signal (the token is consumed, reported
// as such) and leave the count at 0 for the next park.
func TestStdSemaLateSignalAfterTimeout(t *testing.T) {
	s := newFakeSema()
	p := newStdSema(s)
	s.onTimedWait = func() { p.Unpark() } // the unpark lands inside the wait
	wait(t, onThread(func() {
		if !p.ParkDeadline(time.Now().Add(time.Hour)) {
			panic("the late unpark's token was not reported consumed")
		}
	}), "park_timeout with a late signal")
	if !s.idle() {
		t.Fatal("semaphore count not back to 0 after park_timeout took the late signal")
	}
	s.onTimedWait = nil
	// The next park must sleep (no stale count) and time out.
	wait(t, onThread(func() {
		if p.ParkDeadline(time.Now().Add(10 * time.Millisecond)) {
			panic("a stale semaphore count made the next park return a token")
		}
	}), "next park_timeout")
	if got := p.state.Load(); got != stdSemaEmpty {
		t.Fatalf("state after a timed-out park = %d, want EMPTY", got)
	}
}

// TestStdSemaCountStaysZero: many token rounds between two threads leave
// the semaphore idle after each park (checked at the end; the fake panics
// on a count above 1 during the run).
func TestStdSemaCountStaysZero(t *testing.T) {
	s := newFakeSema()
	p := newStdSema(s)
	const n = 2000
	done := make(chan struct{})
	waker := onThread(func() {
		for {
			select {
			case <-done:
				return
			default:
				p.Unpark()
				runtime.Gosched()
			}
		}
	})
	wait(t, onThread(func() {
		for i := 0; i < n; i++ {
			if i%2 == 0 {
				p.Park()
			} else {
				p.ParkDeadline(time.Now().Add(time.Duration(i%7) * time.Microsecond))
			}
		}
	}), "parks")
	close(done)
	wait(t, waker, "waker")
	// One last park consumes a token the waker may have left.
	p.ParkDeadline(time.Now())
	if !s.idle() {
		t.Fatal("semaphore not idle after the run")
	}
}
