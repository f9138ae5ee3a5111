package driver

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// The figures of latency and selfwake that are measured intervals.
var (
	latencyTimeFigures  = []string{results.MMin, results.MMedian, results.MP99, results.MP999, results.MMax}
	selfwakeTimeFigures = []string{results.MNsPerPair, results.MMin, results.MP99, results.MMax}
)

// A sample shorter than one step of the clock is refused, on every OS: fed
// a selfwake configuration whose samples of 100 pairs read 1 ns (what Go's
// tick-stepped clock gave under Wine: 0.01 ns per pair), the figures are
// removed and the warning says why; figures above the step stay.
func TestRefuseBelowResolution(t *testing.T) {
	const step = 100 * time.Nanosecond // QueryPerformanceCounter under Wine
	sub := map[string]float64{results.MNsPerPair: 0.01, results.MMin: 0.01, results.MP99: 0.01, results.MMax: 41, results.MSamples: 1000}
	cfg := &results.Config{Key: "std", Summary: maps.Clone(sub), Rounds: []results.Round{{Metrics: maps.Clone(sub)}}}
	got := RefuseBelowResolution(cfg, selfwakeTimeFigures, 100, step, "QueryPerformanceCounter")
	if want := []string{results.MNsPerPair, results.MMin, results.MP99}; !slices.Equal(got, want) {
		t.Errorf("refused %v, want %v", got, want)
	}
	for _, f := range got {
		if _, ok := cfg.Summary[f]; ok {
			t.Errorf("summary still has %s", f)
		}
		if _, ok := cfg.Rounds[0].Metrics[f]; ok {
			t.Errorf("round 1 still has %s", f)
		}
	}
	if cfg.Summary[results.MMax] != 41 || cfg.Summary[results.MSamples] != 1000 {
		t.Errorf("figures above the step changed: %v", cfg.Summary)
	}
	if len(cfg.Warnings) != 1 || !strings.HasPrefix(cfg.Warnings[0], BelowClockPrefix) || !strings.Contains(cfg.Warnings[0], "QueryPerformanceCounter") {
		t.Errorf("warnings %q", cfg.Warnings)
	}

	// The same per-pair figure from samples above the step is kept: 14 ns
	// per pair x 100 pairs = 1.4 µs, 14 steps.
	ok := &results.Config{Key: "std", Summary: map[string]float64{results.MNsPerPair: 14, results.MMin: 12}}
	if got := RefuseBelowResolution(ok, selfwakeTimeFigures, 100, step, "QueryPerformanceCounter"); got != nil || len(ok.Warnings) != 0 {
		t.Errorf("refused %v (warnings %q) from 1.4 µs samples", got, ok.Warnings)
	}
	// A latency sample (one interval each) under the step is refused; an
	// unknown resolution refuses nothing.
	lat := &results.Config{Key: "c-spin/cross-core", Summary: map[string]float64{results.MMin: 0, results.MMedian: 60, results.MP99: 400}}
	if got := RefuseBelowResolution(lat, latencyTimeFigures, 1, step, "QueryPerformanceCounter"); !slices.Equal(got, []string{results.MMin, results.MMedian}) {
		t.Errorf("latency: refused %v, want min and median", got)
	}
	if got := RefuseBelowResolution(&results.Config{Summary: map[string]float64{results.MMin: 0}}, latencyTimeFigures, 1, 0, "?"); got != nil {
		t.Errorf("unknown resolution refused %v", got)
	}
}
