package gate

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/optionerr"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/verdict"
)

// The gate's statistics are tested on synthetic samples, never on timings:
// with no shift the procedure must not alarm more often than designed; a
// known shift must be found.

func TestHolm(t *testing.T) {
	// Holm's example shape: sorted p 0.01, 0.02, 0.03, 0.04 with m=4 ->
	// 0.04, 0.06, 0.06 (monotone), 0.06.
	got := holm([]float64{0.03, 0.01, 0.04, 0.02})
	want := []float64{0.06, 0.04, 0.06, 0.06}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("holm = %v, want %v", got, want)
		}
	}
	if got := holm([]float64{0.5, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Fatalf("capped at 1: %v", got)
	}
}

func TestUTest(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	b := []float64{11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	// Complete separation of 10+10: 2/C(20,10).
	if p := uTest(a, b); math.Abs(p-2/184756.0) > 1e-9 {
		t.Fatalf("p = %v, want %v", p, 2/184756.0)
	}
	if p := uTest(a, a); p < 0.9 {
		t.Fatalf("identical samples: p = %v", p)
	}
	if p := uTest([]float64{1, 1, 1}, []float64{1, 1, 1}); p != 1 {
		t.Fatalf("all equal: p = %v", p)
	}
}

func TestRatioCI(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := make([]float64, 20)
	nw := make([]float64, 20)
	for i := range base {
		base[i] = 1 + 0.02*rng.NormFloat64()
		nw[i] = 1.1 * (1 + 0.02*rng.NormFloat64())
	}
	lo, hi := ratioCI(base, nw, 0.95, 2000, rng)
	if !(lo < 1.1 && hi > 1.1 && lo > 1.05 && hi < 1.15) {
		t.Fatalf("interval [%v, %v] of a 1.10 ratio", lo, hi)
	}
}

// synth is a Source of synthetic trials: each row's figure is its centre
// times log-normal noise (sigma), times 1+shift[row] on the new side, times
// a drift common to both sides that moves with the trial count.
type synth struct {
	rng    *rand.Rand
	sigma  float64
	shift  map[string]float64
	drift  float64 // relative change per trial
	trials int
}

func (s *synth) Trial(_ context.Context, side Side, rows []Row) (*Trial, error) {
	s.trials++
	t := &Trial{Values: map[string]float64{}, Load: -1}
	d := 1 + s.drift*float64(s.trials)
	for _, r := range rows {
		v := 1.02 * d * math.Exp(s.sigma*s.rng.NormFloat64())
		if side == New {
			v *= 1 + s.shift[r.ID()]
		}
		t.Values[r.ID()] = v
	}
	return t, nil
}

var synthRows = []Row{
	{Experiment: "latency", Config: "futex/cross-core", Impl: "futex", Metric: "median_ns", Header: "median", Floor: "c-futex/cross-core"},
	{Experiment: "latency", Config: "lot/cross-core", Impl: "lot", Metric: "median_ns", Header: "median", Floor: "c-futex/cross-core"},
	{Experiment: "latency", Config: "std/cross-core", Impl: "std", Metric: "median_ns", Header: "median", Floor: "c-futex/cross-core"},
}

// runs runs the gate n times on synth sources and counts the runs that
// found a regression, and how many trials a side the runs took at most.
func runs(t *testing.T, n int, opt Options, sigma, drift float64, shift map[string]float64) (alarms, maxPerSide int) {
	t.Helper()
	for seed := range uint64(n) {
		opt.Seed = seed
		src := &synth{rng: rand.New(rand.NewPCG(seed, 99)), sigma: sigma, shift: shift, drift: drift}
		out, err := Run(context.Background(), src, synthRows, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Regression {
			alarms++
		}
		maxPerSide = max(maxPerSide, len(out.Trials)/2)
	}
	return alarms, maxPerSide
}

func testOptions() Options {
	o := DefaultOptions
	o.Resamples = 300 // enough for the interval's role here; fast under -race
	return o
}

// TestAANoAlarm: no shift. With the minimum effect at 0 only the test's
// alpha stands between noise and an alarm: the rate must stay within the
// designed 1% (here at most 2% of 600 runs: 12, where 1% gives 6 on
// average and P(X > 12) < 0.02 for Binomial(600, 0.01)); with the default
// 3% minimum effect, noise of 3% per trial never alarms. A linear drift of
// the machine during the run (0.5% per trial, 10% over a first look) falls
// on both sides alike in ABBA blocks.
func TestAANoAlarm(t *testing.T) {
	longtest.Skip(t)
	n := 600
	if testing.Short() || longtest.Race {
		n = 150
	}
	opt := testOptions()
	opt.MinEffect = 0
	a, most := runs(t, n, opt, 0.03, 0, nil)
	t.Logf("A/A, 3%% noise, no minimum effect: %d alarms in %d runs, at most %d trials a side", a, n, most)
	if a > n/50 {
		t.Errorf("A/A, no minimum effect: %d alarms in %d runs, designed at most 1%%", a, n)
	}
	if a, _ := runs(t, n, testOptions(), 0.03, 0, nil); a > 0 {
		t.Errorf("A/A: %d alarms in %d runs", a, n)
	}
	if a, _ := runs(t, n, testOptions(), 0.03, 0.005, nil); a > 0 {
		t.Errorf("A/A with drift: %d alarms in %d runs", a, n)
	}
}

// TestDetects: a +10% shift of one headline row with 3% noise per trial
// is found in at least 99% of runs; +25% in all; +1% (below the minimum
// effect) never fails the gate.
func TestDetects(t *testing.T) {
	n := 200
	if testing.Short() || longtest.Race {
		n = 50
	}
	id := synthRows[0].ID()
	a, most := runs(t, n, testOptions(), 0.03, 0, map[string]float64{id: 0.10})
	t.Logf("+10%% on one row, 3%% noise: found in %d of %d runs, at most %d trials a side", a, n, most)
	if a < n*99/100 {
		t.Errorf("+10%%: found in %d of %d runs", a, n)
	}
	a5, _ := runs(t, n, testOptions(), 0.03, 0, map[string]float64{id: 0.05})
	t.Logf("+5%% on one row, 3%% noise: found in %d of %d runs (not asserted)", a5, n)
	if a, _ := runs(t, n, testOptions(), 0.03, 0.005, map[string]float64{id: 0.25}); a != n {
		t.Errorf("+25%% under drift: found in %d of %d runs", a, n)
	}
	if a, _ := runs(t, n, testOptions(), 0.01, 0, map[string]float64{id: 0.01}); a != 0 {
		t.Errorf("+1%%: %d alarms in %d runs", a, n)
	}
}

// TestUnknownExtends: noise too wide to decide at the first look runs more
// trials for the unknown rows, never beyond MaxTrials, and an unknown row
// does not fail the gate.
func TestUnknownExtends(t *testing.T) {
	opt := testOptions()
	src := &synth{rng: rand.New(rand.NewPCG(7, 7)), sigma: 0.15}
	out, err := Run(context.Background(), src, synthRows, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Trials) <= 2*opt.Trials || len(out.Trials) > 2*opt.MaxTrials {
		t.Fatalf("%d trials: want more than %d, at most %d", len(out.Trials), 2*opt.Trials, 2*opt.MaxTrials)
	}
	if out.Count(verdict.Unknown) == 0 || out.Regression {
		t.Fatalf("verdicts %+v", out.Rows)
	}
	for _, r := range out.Rows {
		if r.Verdict == verdict.Unknown && (r.NBase != opt.MaxTrials || r.Look != opt.Looks()) {
			t.Fatalf("%s unknown at n=%d look %d", r.Config, r.NBase, r.Look)
		}
	}
	if opt.Looks() != 3 || math.Abs(opt.LookAlpha()-opt.Alpha/3) > 1e-15 {
		t.Fatalf("looks %d, look alpha %v", opt.Looks(), opt.LookAlpha())
	}
}

func TestHigherIsBetter(t *testing.T) {
	rows := []Row{{Experiment: "lock", Config: "lot/t=2", Metric: "total_mops", Header: "total Mops", Higher: true}}
	opt := testOptions()
	// Throughput down 20%: a regression.
	src := &synth{rng: rand.New(rand.NewPCG(3, 3)), sigma: 0.02, shift: map[string]float64{rows[0].ID(): -0.2}}
	out, err := Run(context.Background(), src, rows, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !out.Regression || out.Rows[0].Verdict != verdict.Slower {
		t.Fatalf("throughput -20%%: %+v", out.Rows[0].Judgement)
	}
	// Up 20%: faster.
	src = &synth{rng: rand.New(rand.NewPCG(3, 3)), sigma: 0.02, shift: map[string]float64{rows[0].ID(): 0.2}}
	out, _ = Run(context.Background(), src, rows, opt, nil)
	if out.Regression || out.Rows[0].Verdict != verdict.Faster {
		t.Fatalf("throughput +20%%: %+v", out.Rows[0].Judgement)
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, c := range []struct {
		o     Options
		field string
	}{
		{Options{Trials: 3, MaxTrials: 3, Alpha: 0.01, Confidence: 0.95, Resamples: 100}, "Trials"},
		{Options{Trials: 10, MaxTrials: 8, Alpha: 0.01, Confidence: 0.95, Resamples: 100}, "MaxTrials"},
		{Options{Trials: 10, MaxTrials: 20, Step: 3, Alpha: 0.01, Confidence: 0.95, Resamples: 100}, "Step"},
		{Options{Trials: 10, MaxTrials: 10, Alpha: 0, Confidence: 0.95, Resamples: 100}, "Alpha"},
		{Options{Trials: 10, MaxTrials: 10, Alpha: 0.01, MinEffect: -1, Confidence: 0.95, Resamples: 100}, "MinEffect"},
		{Options{Trials: 10, MaxTrials: 10, Alpha: 0.01, Confidence: 1, Resamples: 100}, "Confidence"},
		{Options{Trials: 10, MaxTrials: 10, Alpha: 0.01, Confidence: 0.95, Resamples: 99}, "Resamples"},
	} {
		var oe *optionerr.Error
		if err := c.o.Validate(); !errors.As(err, &oe) || oe.Field != c.field {
			t.Errorf("%+v: %v, want an *optionerr.Error on %s", c.o, err, c.field)
		}
	}
	if err := DefaultOptions.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestScaleTest: the spread test sees a wider spread at the same median
// and nothing in identical samples.
func TestScaleTest(t *testing.T) {
	base := []float64{0.98, 0.99, 1.0, 1.01, 1.02, 0.985, 0.995, 1.005, 1.015, 1.0}
	wide := []float64{0.6, 0.7, 1.3, 1.4, 0.65, 1.35, 0.75, 1.25, 0.8, 1.2}
	if p := scaleTest(base, wide); p > 1e-3 {
		t.Fatalf("wider spread: p = %v", p)
	}
	if p := scaleTest(base, base); p < 0.9 {
		t.Fatalf("identical: p = %v", p)
	}
}

// TestSpreadChange: one row whose new trials split between its old value
// and a much lower and a higher one (the futex row under a wake-path
// delay: the median barely moves) is found by the scale test and judged on
// its bad quartile.
func TestSpreadChange(t *testing.T) {
	rows := synthRows[:1]
	found := 0
	for seed := range uint64(50) {
		src := &bimodal{rng: rand.New(rand.NewPCG(seed, 11))}
		opt := testOptions()
		opt.Seed = seed
		out, err := Run(context.Background(), src, rows, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Rows[0].Verdict == verdict.Slower {
			found++
		}
	}
	t.Logf("spread change at the same median: failed the gate in %d of 50 runs", found)
	if found < 40 {
		t.Errorf("spread change: found in %d of 50 runs", found)
	}
}

// bimodal: base trials 1.0 ± 2%; new trials as the futex row's under a
// 5 µs delay in its Unpark (measured: half the trials 15-25% up, a third
// 20-70% down where most waits no longer slept): 1.18 ± 3%, 0.7 ± 15% or
// 1.0 ± 2% with probabilities 0.5, 0.3, 0.2; the median moves a few
// percent, the spread five-fold.
type bimodal struct{ rng *rand.Rand }

func (s *bimodal) Trial(_ context.Context, side Side, rows []Row) (*Trial, error) {
	t := &Trial{Values: map[string]float64{}}
	for _, r := range rows {
		v, sd := 1.0, 0.02
		if side == New {
			switch u := s.rng.Float64(); {
			case u < 0.5:
				v, sd = 1.18, 0.03
			case u < 0.8:
				v, sd = 0.7, 0.15
			}
		}
		t.Values[r.ID()] = v * (1 + sd*s.rng.NormFloat64())
	}
	return t, nil
}

// TestProfilePartsFloors: a latency part measures each row's floor in the
// same launch; a raw part (wake) measures none and judges the figure
// itself.
func TestProfilePartsFloors(t *testing.T) {
	specs := []results.MetricSpec{{Key: "m", Headline: true, Floor: "c-futex"}}
	if got := impls(LatencyPart, nil, specs); !slices.Equal(got, []string{"futex", "lot", "std", "c-futex"}) {
		t.Errorf("latency part launches %v, want the rows and c-futex", got)
	}
	if got := impls(WakePart, nil, specs); !slices.Equal(got, []string{"futex", "lot", "std"}) {
		t.Errorf("wake part launches %v, want the rows only", got)
	}
	e := &results.Experiment{Name: "wake", Configs: []*results.Config{
		{Key: "lot/wake/n=16/w=all", Impl: "lot", Summary: map[string]float64{"m": 48e3}},
	}}
	if v, err := value(e, Row{Experiment: "wake", Config: "lot/wake/n=16/w=all", Metric: "m"}); err != nil || v != 48e3 {
		t.Errorf("raw value %v, %v; want 48000", v, err)
	}
	for _, p := range Profiles {
		if len(p.Parts) == 0 {
			t.Errorf("profile %s has no part", p.Name)
		}
	}
}
