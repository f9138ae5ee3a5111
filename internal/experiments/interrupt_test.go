package experiments

import (
	"context"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
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
	state := drivertest.Save()
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
		drivertest.Interrupt(t, name, 60*time.Second, run)
		state.Check(t, name)
		if affErr == nil {
			if now, _ := osthread.Affinity(); !slices.Equal(now, aff) {
				t.Errorf("%s: affinity %v after interrupt, want %v", name, now, aff)
			}
		}
	}
}
