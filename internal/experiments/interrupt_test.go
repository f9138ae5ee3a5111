package experiments

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/osthread"
)

// TestInterruptRestores cancels each experiment part-way (as SIGINT does
// through the command's signal context) and checks that it returns
// context.Canceled and leaves the runtime as it found it: GOMAXPROCS, the
// GC percent, and the affinity of the calling thread.
func TestInterruptRestores(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	procs := runtime.GOMAXPROCS(0)
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	aff, affErr := osthread.Affinity()

	lat := latency.QuickLatencyOptions()
	lat.Impls = []string{latency.FirstAvailable("futex", "pthread", "waitonaddress", "keyedevent"), "spin"}
	if lat.Impls[0] == "" {
		t.Skip("no sleeping thread parker runs here")
	}
	lat.Iterations = 1_000_000
	hd := herd.QuickOptions()
	hd.Impls = []string{"lot"}
	hd.Repeats = 1000
	wk := wake.QuickOptions()
	wk.Impls, wk.Benches, wk.Threads, wk.Runs = []string{"lot"}, []string{wake.BenchWake}, []int{2}, 1000
	ld := loaded.QuickOptions()
	ld.Impls, ld.Rounds = []string{"lot"}, 100
	runs := map[string]func(ctx context.Context) error{
		"latency": func(ctx context.Context) error { _, err := latency.RunLatency(ctx, lat, nil); return err },
		"herd":    func(ctx context.Context) error { _, err := herd.Run(ctx, hd, nil); return err },
		"wake":    func(ctx context.Context) error { _, err := wake.Run(ctx, wk, nil); return err },
		"loaded":  func(ctx context.Context) error { _, err := loaded.Run(ctx, ld, nil); return err },
	}
	for name, run := range runs {
		ctx, cancel := context.WithCancel(context.Background())
		timer := time.AfterFunc(300*time.Millisecond, cancel)
		done := make(chan error, 1)
		go func() { done <- run(ctx) }()
		var err error
		select {
		case err = <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: did not stop within 60 s of the cancel", name)
		}
		timer.Stop()
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", name, err)
		}
		if got := runtime.GOMAXPROCS(0); got != procs {
			t.Errorf("%s: GOMAXPROCS %d after interrupt, want %d", name, got, procs)
		}
		if got := debug.SetGCPercent(gc); got != gc {
			t.Errorf("%s: GC percent %d after interrupt, want %d", name, got, gc)
		}
		if affErr == nil {
			if now, _ := osthread.Affinity(); !slices.Equal(now, aff) {
				t.Errorf("%s: affinity %v after interrupt, want %v", name, now, aff)
			}
		}
	}
}
