package cli

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
)

// blindLock is a spin lock that loses its wakeup: Unlock forgets to
// release, so whoever locks next spins until the test stops it.
type blindLock struct {
	held atomic.Bool
	stop *atomic.Bool
}

func (l *blindLock) Lock() {
	for !l.held.CompareAndSwap(false, true) && !l.stop.Load() {
	}
}
func (l *blindLock) Unlock() {}

// TestSpinLostWakeupFails: a pure-spin waiter that never sees its signal
// (a plugin's lock whose unlock is lost) fails the run with exit status 1
// naming it, within the watchdog's period (and the second of releases).
func TestSpinLostWakeupFails(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a measurement")
	}
	if driver.NeedFutex() != nil {
		t.Skip("spin runs on Linux only")
	}
	var stop atomic.Bool
	defer stop.Store(true)
	defer ext.Restore(ext.Saved())
	if err := experiments.AddExternal(ext.Impl{Name: "blind-spin", Summary: "loses its unlock", Origin: "the test",
		NewLock: func() ext.Locker { return &blindLock{stop: &stop} }}); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	start := time.Now()
	code := executeTo([]string{"spin", "--impl=blind-spin", "--budgets=0", "--gaps=1us", "--waits=5", "--warmup=0",
		"--rounds=1", "--pingpong=10", "--placement=oversubscribed", "--quiet"}, &out, &errb)
	took := time.Since(start)
	if code != exitFailed || !strings.Contains(errb.String(), "lost wakeup: blind-spin") {
		t.Fatalf("exit %d, want %d naming blind-spin; stderr: %s", code, exitFailed, errb.String())
	}
	if took > 10*time.Second {
		t.Errorf("the run took %v to fail", took)
	}
}

// TestSpinOneCPU: with one CPU (taskset -c 0), cross-core cannot be
// pinned; the run says it ran oversubscribed instead.
func TestSpinOneCPU(t *testing.T) {
	out := runOnOneCPU(t, "spin", "--placement=cross-core", "--budgets=0,unbounded", "--impl=competitive",
		"--gaps=1us", "--waits=10", "--warmup=2", "--rounds=1", "--pingpong=10")
	if !strings.Contains(strings.ReplaceAll(out, "\n      ", " "), "ran on it together (oversubscribed) instead") || !strings.Contains(out, "oversubscribed") {
		t.Fatalf("the output does not say that it ran oversubscribed instead:\n%s", out)
	}
}
