package cref

import (
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/osthread"
)

// startAsleep starts n C waiters and waits until each counted in and was
// seen asleep.
func startAsleep(t *testing.T, kind WakeKind, n int) *WakeSet {
	t.Helper()
	w, err := StartWake(kind, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for w.Counted() < n {
		if time.Now().After(deadline) {
			w.Close()
			t.Fatalf("only %d of %d C waiters counted in", w.Counted(), n)
		}
		time.Sleep(50 * time.Microsecond)
	}
	if err := osthread.AwaitSleeping(n, w.Tid, deadline, 50*time.Microsecond); err != nil {
		w.Close()
		t.Fatal(err)
	}
	return w
}

func TestWakeSetWakesEveryWaiter(t *testing.T) {
	if err := WakeAvailable(); err != nil {
		t.Skip(err)
	}
	const n = 16
	for _, c := range []struct {
		name string
		kind WakeKind
		op   WakeOp
		k    int
	}{
		{"futex wake 1", WaitFutex, OpWake, 1},
		{"futex wake all", WaitFutex, OpWake, n},
		{"shared futex wake 3", WaitFutexShared, OpWake, 3},
		{"futex requeue 1", WaitFutex, OpRequeue, 1},
		{"futex requeue all", WaitFutex, OpRequeue, n},
		{"cond broadcast", WaitCond, OpBroadcast, 0},
		{"cond signal", WaitCond, OpSignal, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := startAsleep(t, c.kind, n)
			defer w.Close()
			per := make([]int64, 4*n)
			r := w.Fire(c.op, c.k, per, 10*time.Second, 0)
			if r.TimedOut {
				t.Fatalf("timed out: %+v", r)
			}
			if c.kind != WaitCond && r.Done != n {
				t.Errorf("done %d, want %d (%+v)", r.Done, n, r)
			}
			if r.Calls < 1 || r.TotalNs <= 0 {
				t.Errorf("result %+v", r)
			}
			var sum int64
			for _, d := range per[:min(r.Calls, len(per))] {
				sum += d
			}
			if sum != r.TotalNs && r.Calls <= len(per) {
				t.Errorf("per-call durations sum to %d, total %d", sum, r.TotalNs)
			}
			if !w.Join(10 * time.Second) {
				t.Fatal("a waiter never left its wait: lost wakeup")
			}
		})
	}
}

// TestWakeSetJoinReleases: waiters nobody wakes are released by force
// when Join times out, and Join says so.
func TestWakeSetJoinReleases(t *testing.T) {
	if err := WakeAvailable(); err != nil {
		t.Skip(err)
	}
	for _, kind := range []WakeKind{WaitCond, WaitFutex} {
		w := startAsleep(t, kind, 4)
		if w.Join(5 * time.Millisecond) {
			t.Errorf("kind %d: Join reported every waiter gone, but nobody woke them", kind)
		}
		w.Close()
	}
}

func TestProducerConsumer(t *testing.T) {
	if err := WakeAvailable(); err != nil {
		t.Skip(err)
	}
	for _, held := range []bool{true, false} {
		for _, capacity := range []int{1, 16} {
			r, err := ProducerConsumer(20000, capacity, held, 30*time.Second)
			if err != nil {
				t.Fatalf("held=%v cap=%d: %v", held, capacity, err)
			}
			if r.ElapsedNs <= 0 {
				t.Errorf("held=%v cap=%d: %+v", held, capacity, r)
			}
			t.Logf("held=%v cap=%d: %.0f ns/item, %.3f switches/item, %.3f waits/item", held, capacity,
				float64(r.ElapsedNs)/20000, float64(r.Switches)/20000, float64(r.Waits)/20000)
		}
	}
}
