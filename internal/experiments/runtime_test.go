package experiments

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
)

// TestUnderHostileRuntime runs the experiments with GOMAXPROCS=1 set by the
// caller and a goroutine forcing garbage collections throughout: they must
// complete (no deadlock, a watchdog fails the test otherwise) and the result
// must say that GC touched the measured window.
func TestUnderHostileRuntime(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)

	var stop atomic.Bool
	var gcs atomic.Int64
	go func() {
		for !stop.Load() {
			runtime.GC()
			gcs.Add(1)
			time.Sleep(2 * time.Millisecond)
		}
	}()
	defer stop.Store(true)

	lat := latency.QuickLatencyOptions()
	lat.Impls = []string{"lot"}
	for _, n := range []string{"futex", "futex-raw"} { // Linux: one scheduler-aware, one raw wait
		if latency.FirstAvailable(n) != "" {
			lat.Impls = append(lat.Impls, n)
		}
	}
	lat.Warmup, lat.Iterations, lat.Rounds = 20, 200, 1
	hd := herd.QuickOptions()
	hd.Impls = []string{"lot", "sync"}
	hd.Waiters = []int{4}
	hd.Repeats = 1

	done := make(chan struct{})
	var latGC, herdGC uint32
	var latErr, herdErr error
	go func() {
		defer close(done)
		e, err := latency.RunLatency(context.Background(), lat, nil)
		if latErr = err; err == nil {
			latGC = e.Runtime.GCCycles
		}
		h, err := herd.Run(context.Background(), hd, nil)
		if herdErr = err; err == nil {
			herdGC = h.Runtime.GCCycles
		}
	}()
	select {
	case <-done:
	case <-time.After(120 * time.Second):
		t.Fatal("experiments under GOMAXPROCS=1 and forced GC did not finish within 120 s (deadlock?)")
	}
	if latErr != nil {
		t.Fatalf("latency: %v", latErr)
	}
	if herdErr != nil {
		t.Fatalf("herd: %v", herdErr)
	}
	t.Logf("forced GCs: %d; recorded in latency's windows: %d, herd's: %d", gcs.Load(), latGC, herdGC)
	if gcs.Load() > 0 && latGC == 0 && herdGC == 0 {
		t.Errorf("GC was forced %d times but no result recorded a GC cycle in its measured window", gcs.Load())
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS %d after the experiments, want the caller's 1", got)
	}
}
