package loaded

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/osthread"
)

// handshake drives one mechanism's sleep/post handshake hard (one poster,
// one sleeper, posts at random moments, some while the sleeper is between
// its last look at its queue and its wait) with sleep as the sleeper's
// side, and reports whether the sleeper ever stopped consuming for stall
// while requests were queued: a lost wakeup. It releases a stalled sleeper
// (forcePost) and goes on, so a broken handshake ends too.
func handshake(t *testing.T, m *mechanism, n int, stall time.Duration, sleep func(s *slot, hasWork func() bool)) (lost int) {
	w := &worker{}
	var consumed atomic.Int64
	var stop atomic.Bool
	done := make(chan struct{})
	ready := make(chan struct{})
	body := func() {
		defer close(done)
		m.setup(&w.s)
		close(ready)
		hasWork := func() bool { return !w.q.empty() || stop.Load() }
		for {
			for {
				if _, ok := w.q.pop(); !ok {
					break
				}
				consumed.Add(1)
			}
			if stop.Load() {
				return
			}
			sleep(&w.s, hasWork)
		}
	}
	if m.goroutines {
		go body()
	} else {
		osthread.Go(body)
	}
	<-ready
	seed := uint64(12345)
	watch := func(target int64) {
		last, since := consumed.Load(), time.Now()
		for consumed.Load() < target {
			if c := consumed.Load(); c != last {
				last, since = c, time.Now()
			} else if time.Since(since) > stall {
				lost++
				m.forcePost(&w.s)
				since = time.Now()
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	for posted := 0; posted < n; {
		if !w.q.push(int64(posted)) {
			watch(consumed.Load() + 1)
			continue
		}
		posted++
		m.post(&w.s)
		seed = seed*6364136223846793005 + 1442695040888963407
		switch seed >> 61 {
		case 0:
			watch(int64(posted)) // let it drain and go to sleep
		case 1:
			// Post the next one the moment the queue is seen empty: the
			// sleeper is then between its last pop and its wait.
			for t0 := time.Now(); !w.q.empty() && time.Since(t0) < time.Millisecond; {
			}
		}
	}
	watch(int64(n))
	stop.Store(true)
	m.forcePost(&w.s)
	<-done
	return lost
}

// TestHandshakeNoLostWakeup: no mechanism's handshake loses a wakeup.
func TestHandshakeNoLostWakeup(t *testing.T) {
	n := 5000
	if longtest.Race {
		n = 1500
	}
	for i := range allMechanisms {
		m := &allMechanisms[i]
		t.Run(m.name, func(t *testing.T) {
			if why := m.why(); why != "" {
				t.Skip(why)
			}
			if lost := handshake(t, m, n, 2*time.Second, func(s *slot, h func() bool) { m.sleep(s, h) }); lost > 0 {
				t.Errorf("%d lost wakeups (the sleeper stopped with requests queued)", lost)
			}
		})
	}
}

// TestHandshakeMutantLosesWakeups: a sleeper that does not look at its
// queue again after announcing its sleep (Dekker's second look) loses
// wakeups, and the test above would see it: the detector is live.
func TestHandshakeMutantLosesWakeups(t *testing.T) {
	m := &allMechanisms[0] // futex
	if why := m.why(); why != "" {
		t.Skip(why)
	}
	noSecondLook := func(s *slot, _ func() bool) {
		s.state.Store(sleepy)
		m.wait(s)
		s.state.Store(awake)
	}
	for try := 0; try < 20; try++ {
		if lost := handshake(t, m, 20000, 50*time.Millisecond, noSecondLook); lost > 0 {
			t.Logf("try %d: %d lost wakeups", try+1, lost)
			return
		}
	}
	t.Error("the mutant without the second look never lost a wakeup: the detector cannot see the bug")
}
