package latency

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// The spin-floor note splits spin's gap to c-spin into the second cache
// line (spin - spin-1line) and the rest.
func TestSpinLineNotes(t *testing.T) {
	l := lat(cfg("spin", "thread", driver.CrossCore, false, 282, 0, 2000, 0),
		cfg(ImplSpinOneLine, KindTwin, driver.CrossCore, false, 184, 0, 2000, 0),
		cfg(ImplGoSpin, KindTwin, driver.CrossCore, false, 169, 0, 2000, 0),
		cfg(ImplCSpin, KindCRef, driver.CrossCore, false, 170, 0, 2000, 0))
	notes := SpinLineNotes(l)
	if len(notes) != 1 {
		t.Fatalf("notes %q, want one", notes)
	}
	for _, want := range []string{"spin/c-spin 1.66x", "spin-1line/c-spin 1.08x", "the second cache line is 88% of spin's gap to c-spin"} {
		if !strings.Contains(notes[0], want) {
			t.Errorf("note lacks %q: %s", want, notes[0])
		}
	}
	if n := SpinLineNotes(lat(cfg("spin", "thread", driver.CrossCore, false, 282, 0, 2000, 0))); len(n) != 0 {
		t.Errorf("spin alone: %q, want no note", n)
	}
}

// spin-1line keeps every wake: a short pinned run completes (the round
// watchdog turns a lost wake into an error) with both sides' samples.
func TestRunSpinOneLine(t *testing.T) {
	defer func(old func([2]int) *results.Probe) { measureProbe = old }(measureProbe)
	measureProbe = cheapProbe
	if driver.SingleCPU() {
		t.Skip("busy-waiting needs two CPUs")
	}
	place := driver.CrossCore
	if driver.PinBlocked() != "" {
		place = driver.Unpinned
	}
	o := LatencyOptions{Impls: []string{ImplSpinOneLine}, Placements: []string{place}, Warmup: 10, Iterations: 200, Rounds: 1, GapWarmup: 1, GapIterations: 1}
	exp, err := RunLatency(t.Context(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Configs) != 1 || exp.Configs[0].Summary[results.MSamples] != 400 {
		t.Fatalf("configs %+v", exp.Configs)
	}
}
