package spin

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/osthread"
)

// testPlacements are the placements this machine can pin: both with two
// CPUs, oversubscribed alone with one.
func testPlacements(t *testing.T) map[string][2]int {
	t.Helper()
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		t.Skipf("cannot read the CPU affinity: %v", err)
	}
	out := map[string][2]int{Oversubscribed: {cpus[0], cpus[0]}}
	if len(cpus) > 1 {
		out[CrossCore] = [2]int{cpus[0], cpus[1]}
	}
	return out
}

// TestNoLostWakeup races the waker's exchange + FUTEX_WAKE against the
// waiter's check + announce + FUTEX_WAIT, every strategy, at gaps of 0
// (the signal lands while the waiter decides), a few hundred ns and a few
// µs (around the short budgets' ends), in both placements. A lost wakeup
// stops the job under the pair's watchdog (LostWakeupError), which this
// test shortens; the test's own deadline catches a watchdog that failed.
func TestNoLostWakeup(t *testing.T) {
	defer func(p time.Duration) { WatchdogPeriod = p }(WatchdogPeriod)
	WatchdogPeriod = 3 * time.Second
	n := 2000
	if testing.Short() {
		n = 200
	}
	rows := []row{fixedRow(0), fixedRow(300 * time.Nanosecond), fixedRow(2 * time.Microsecond)}
	for _, r := range named() {
		if r.proto == protoWord {
			rows = append(rows, r)
		}
	}
	for pl, cpus := range testPlacements(t) {
		pr, err := startPair(cpus, pl == Oversubscribed)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			for _, gap := range []time.Duration{0, 400 * time.Nanosecond, 3 * time.Microsecond} {
				j := &job{kind: jobWait, r: r, gap: int64(gap), n: n, competitive: time.Microsecond, out: make([]sample, n)}
				done := make(chan error, 1)
				go func() { done <- pr.run(context.Background(), j, pl) }()
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("%s %s gap %v: %v", pl, r.label(), gap, err)
					}
				case <-time.After(2 * time.Minute):
					t.Fatalf("%s %s gap %v: the watchdog did not stop a hung job", pl, r.label(), gap)
				}
				for i, s := range j.out {
					if s.lat < 0 {
						t.Fatalf("%s %s gap %v wait %d: the waiter returned %d ns before the signal", pl, r.label(), gap, i, -s.lat)
					}
				}
			}
		}
		pr.stop()
	}
}

// lossyPark parks without announcing it (FUTEX_WAIT on Empty, no
// compare-and-swap to Parked): a signal after it sleeps finds the word
// Empty and wakes nobody. The lost wakeup the protocol rules out.
func lossyPark(w *word) bool {
	futexWait(&w.v, wordEmpty)
	return true
}

// TestWatchdogNamesALostWakeup: a strategy that loses its wakeup fails
// the job within the watchdog's period, naming the strategy, and the
// watchdog's release brings its threads back.
func TestWatchdogNamesALostWakeup(t *testing.T) {
	defer func(p time.Duration) { WatchdogPeriod = p }(WatchdogPeriod)
	WatchdogPeriod = 300 * time.Millisecond
	for pl, cpus := range testPlacements(t) {
		pr, err := startPair(cpus, pl == Oversubscribed)
		if err != nil {
			t.Fatal(err)
		}
		r := row{name: "lossy-park", proto: protoWord, phase: func(bool, time.Duration) spinPhase { return lossyPark }}
		j := &job{kind: jobWait, r: r, gap: int64(200 * time.Microsecond), n: 50, out: make([]sample, 50)}
		start := time.Now()
		err = pr.run(context.Background(), j, pl)
		var lw *LostWakeupError
		if !errors.As(err, &lw) || lw.Row != "lossy-park" {
			t.Fatalf("%s: want a lost wakeup naming lossy-park, got %v", pl, err)
		}
		if took := time.Since(start); took > WatchdogPeriod+2*time.Second {
			t.Errorf("%s: the watchdog took %v (period %v)", pl, took, WatchdogPeriod)
		}
		if pr.broken {
			t.Fatalf("%s: the release did not bring the threads back", pl)
		}
		// The pair still works.
		ok := &job{kind: jobWait, r: fixedRow(0), gap: int64(time.Microsecond), n: 20, out: make([]sample, 20)}
		if err := pr.run(context.Background(), ok, pl); err != nil {
			t.Fatalf("%s: after the release: %v", pl, err)
		}
		pr.stop()
	}
}

// TestWatchdogStopsAPureSpinner: a pure-spin strategy that never sees its
// signal (it spins on the wrong thing) cannot be released; the job still
// fails within the watchdog's period plus the second of release attempts,
// naming it, and the pair is marked unusable.
func TestWatchdogStopsAPureSpinner(t *testing.T) {
	defer func(p time.Duration) { WatchdogPeriod = p }(WatchdogPeriod)
	WatchdogPeriod = 300 * time.Millisecond
	cpus := testPlacements(t)[Oversubscribed]
	if c, ok := testPlacements(t)[CrossCore]; ok {
		cpus = c
	}
	var stop atomic.Bool
	defer stop.Store(true)
	blind := func(*word) bool {
		for !stop.Load() {
			procyield(1)
		}
		return true
	}
	pr, err := startPair(cpus, cpus[0] == cpus[1])
	if err != nil {
		t.Fatal(err)
	}
	r := row{name: "blind-spin", proto: protoWord, phase: func(bool, time.Duration) spinPhase { return blind }}
	j := &job{kind: jobWait, r: r, gap: int64(time.Microsecond), n: 10, out: make([]sample, 10)}
	start := time.Now()
	err = pr.run(context.Background(), j, "test")
	var lw *LostWakeupError
	if !errors.As(err, &lw) || lw.Row != "blind-spin" {
		t.Fatalf("want a lost wakeup naming blind-spin, got %v", err)
	}
	if took := time.Since(start); took > WatchdogPeriod+3*time.Second {
		t.Errorf("the watchdog took %v (period %v)", took, WatchdogPeriod)
	}
	if !pr.broken {
		t.Errorf("a spinner that cannot be released left the pair usable")
	}
	if err := pr.run(context.Background(), j, "test"); err == nil {
		t.Errorf("a broken pair ran another job")
	}
}
