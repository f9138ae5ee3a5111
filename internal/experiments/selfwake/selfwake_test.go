package latency

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/results"
)

// TestRunSelfwake runs every implementation for a few samples and checks
// the structure: a syscall reference row, ns per pair present, histograms
// decode, the claim is there.
func TestRunSelfwake(t *testing.T) {
	defer func(old func([2]int) *results.Probe) { measureProbe = old }(measureProbe)
	measureProbe = cheapProbe
	o := SelfwakeOptions{Impls: []string{ImplAll}, Pairs: 10, Samples: 20, Rounds: 2}
	exp := drivertest.Run(t, RunSelfwake, o)
	if len(exp.Configs) < 3 || exp.Configs[0].Impl != ImplSyscall {
		t.Fatalf("%d configs, first %q", len(exp.Configs), exp.Configs[0].Impl)
	}
	for _, c := range exp.Configs {
		if len(c.Rounds) != 2 {
			t.Fatalf("%s: %d rounds", c.Key, len(c.Rounds))
		}
		// A sample of 10 pairs of the cheapest mechanisms (c-spin: about
		// 13 ns) can be under the clock's step (about 20 ns on Linux):
		// then its time figures are refused, and the warning says so.
		refused := false
		for _, w := range c.Warnings {
			refused = refused || strings.HasPrefix(w, belowClockPrefix)
		}
		for _, m := range []string{results.MNsPerPair, results.MMin, results.MP99, MCtxSwPerPair, MSyscallNs} {
			if _, ok := c.Summary[m]; !ok && !(refused && slices.Contains(selfwakeTimeFigures, m)) {
				t.Errorf("%s: %s missing (warnings %q)", c.Key, m, c.Warnings)
			}
		}
		h, err := hdrhistogram.Decode([]byte(c.Rounds[0].Histogram))
		if err != nil || h.TotalCount() != 20 {
			t.Errorf("%s: histogram %v, %v", c.Key, err, h)
		}
	}
	if len(exp.Claims) != 1 || exp.Claims[0].ID != ClaimE12SelfAtOnc {
		t.Errorf("claims %+v", exp.Claims)
	}
	// The cross claim evaluates from these and a latency run. The windows'
	// foreign shares go: on a machine busy with other processes the claim
	// kit leaves every figure out (its own test), and this test is of the
	// two runs' figures meeting, not of the machine.
	l := drivertest.Run(t, RunLatency, tinyLatency(sleeper(t)))
	for _, c := range append(slices.Clone(l.Configs), exp.Configs...) {
		c.Foreign = nil
	}
	if c := CrossClaims(l, exp); c[0].Verdict == results.NotEvaluated {
		t.Errorf("cross claim not evaluated: %s", c[0].Evidence)
	}
}

func TestSelfwakeBadOptions(t *testing.T) {
	for name, o := range map[string]SelfwakeOptions{
		"zero pairs":   {Impls: []string{"futex"}, Pairs: 0, Samples: 1, Rounds: 1},
		"zero samples": {Impls: []string{"futex"}, Pairs: 1, Samples: 0, Rounds: 1},
		"unknown":      {Impls: []string{"nope"}, Pairs: 1, Samples: 1, Rounds: 1},
	} {
		var oe *driver.OptionError
		if _, err := RunSelfwake(context.Background(), o, nil); !errors.As(err, &oe) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// A sample shorter than one step of the clock is refused, on every OS: fed
// a selfwake configuration whose samples of 100 pairs read 1 ns (what Go's
// tick-stepped clock gave under Wine: 0.01 ns per pair), the figures are
// removed and the warning says why; figures above the step stay.
func TestRefuseBelowResolution(t *testing.T) {
	const step = 100 * time.Nanosecond // QueryPerformanceCounter under Wine
	sub := map[string]float64{results.MNsPerPair: 0.01, results.MMin: 0.01, results.MP99: 0.01, results.MMax: 41, results.MSamples: 1000}
	cfg := &results.Config{Key: "std", Summary: maps.Clone(sub), Rounds: []results.Round{{Metrics: maps.Clone(sub)}}}
	got := refuseBelowResolution(cfg, selfwakeTimeFigures, 100, step, "QueryPerformanceCounter")
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
	if len(cfg.Warnings) != 1 || !strings.HasPrefix(cfg.Warnings[0], belowClockPrefix) || !strings.Contains(cfg.Warnings[0], "QueryPerformanceCounter") {
		t.Errorf("warnings %q", cfg.Warnings)
	}

	// The same per-pair figure from samples above the step is kept: 14 ns
	// per pair x 100 pairs = 1.4 µs, 14 steps.
	ok := &results.Config{Key: "std", Summary: map[string]float64{results.MNsPerPair: 14, results.MMin: 12}}
	if got := refuseBelowResolution(ok, selfwakeTimeFigures, 100, step, "QueryPerformanceCounter"); got != nil || len(ok.Warnings) != 0 {
		t.Errorf("refused %v (warnings %q) from 1.4 µs samples", got, ok.Warnings)
	}
	// A latency sample (one interval each) under the step is refused; an
	// unknown resolution refuses nothing.
	lat := &results.Config{Key: "c-spin/cross-core", Summary: map[string]float64{results.MMin: 0, results.MMedian: 60, results.MP99: 400}}
	if got := refuseBelowResolution(lat, latencyTimeFigures, 1, step, "QueryPerformanceCounter"); !slices.Equal(got, []string{results.MMin, results.MMedian}) {
		t.Errorf("latency: refused %v, want min and median", got)
	}
	if got := refuseBelowResolution(&results.Config{Summary: map[string]float64{results.MMin: 0}}, latencyTimeFigures, 1, 0, "?"); got != nil {
		t.Errorf("unknown resolution refused %v", got)
	}
}

// TestSelfwakeHarnessNotes: the fifth note comes exactly when the empty
// pair costs more than a fifth of lot's pair above it; the note on what Go
// adds beside parking_lot_core comes last, with any lot row.
func TestSelfwakeHarnessNotes(t *testing.T) {
	lotRow := func(harness, over float64) []*results.Config {
		return []*results.Config{
			{Key: "std", Impl: "std", Summary: map[string]float64{results.MNsPerPair: 5}},
			{Key: ImplLot, Impl: ImplLot, Summary: map[string]float64{results.MNsPerPair: harness + over, MHarnessNs: harness, MOverHarness: over}},
		}
	}
	goNote := func(n []string) bool { return strings.Contains(n[len(n)-1], "validate guard") }
	if n := selfwakeHarnessNotes(lotRow(3, 12)); len(n) != 3 || !strings.Contains(n[1], "more than a fifth") || !goNote(n) {
		t.Errorf("3 ns floor, 12 ns above: want the fifth note, got %q", n)
	}
	if n := selfwakeHarnessNotes(lotRow(2, 12)); len(n) != 2 || !strings.Contains(n[0], "2.00 ns") || !goNote(n) {
		t.Errorf("2 ns floor, 12 ns above: want the floor note and Go's, got %q", n)
	}
	if n := selfwakeHarnessNotes(lotRow(2, 12)[:1]); n != nil {
		t.Errorf("no lot row: want no note, got %q", n)
	}
}

// TestSelfwakeModeNotes: the note comes exactly when lot's slowest round is
// more than 1.2 times its fastest.
func TestSelfwakeModeNotes(t *testing.T) {
	rows := func(rounds ...float64) []*results.Config {
		lot := &results.Config{Key: ImplLot, Impl: ImplLot}
		for _, v := range rounds {
			lot.Rounds = append(lot.Rounds, results.Round{Metrics: map[string]float64{results.MNsPerPair: v}})
		}
		return []*results.Config{{Key: "std", Impl: "std", Rounds: []results.Round{{Metrics: map[string]float64{results.MNsPerPair: 5}}, {Metrics: map[string]float64{results.MNsPerPair: 50}}}}, lot}
	}
	if n := selfwakeModeNotes(rows(11.6, 14.8, 11.7)); len(n) != 1 || !strings.Contains(n[0], "11.60 to 14.80") {
		t.Errorf("rounds 11.6, 14.8, 11.7: want the mode note, got %q", n)
	}
	if n := selfwakeModeNotes(rows(11.6, 13.9, 12.0)); n != nil {
		t.Errorf("rounds within x1.2: want no note, got %q", n)
	}
	if n := selfwakeModeNotes(rows(14.8)); n != nil {
		t.Errorf("one round: want no note, got %q", n)
	}
}
