package wake

import (
	"context"
	"fmt"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
)

func waker(impl, bench string, n int, perCall string, median float64) *results.Config {
	key := fmt.Sprintf("%s/%s/n=%d/w=%s", impl, bench, n, perCall)
	if bench == BenchRequeue {
		key = fmt.Sprintf("%s/%s/n=%d/q=%s", impl, bench, n, perCall)
	}
	return &results.Config{Key: key, Impl: impl, Params: map[string]string{"bench": bench, "n": fmt.Sprint(n), "per_call": perCall},
		Summary: map[string]float64{MWakerMedian: median}}
}

func hashCfg(impl string, n int, rate float64) *results.Config {
	return &results.Config{Key: fmt.Sprintf("%s/hash/n=%d/futexes=1024", impl, n), Impl: impl,
		Params: map[string]string{"bench": BenchHash, "n": fmt.Sprint(n)}, Summary: map[string]float64{MOpsPerSec: rate}}
}

func pcCfg(impl string, itemsPerSec float64) *results.Config {
	return &results.Config{Key: impl + "/condvar", Impl: impl, Params: map[string]string{"bench": BenchCondvar},
		Summary: map[string]float64{MItemsPerSec: itemsPerSec}}
}

func verdicts(cs []*results.Config) map[string]string {
	out := map[string]string{}
	for _, cl := range Claims(cs, 2) {
		out[cl.ID] = cl.Verdict
	}
	return out
}

// The claims on synthetic samples: each must hold on data that satisfies
// it, fail on data that does not, and stay unevaluated without its data.
func TestClaims(t *testing.T) {
	for _, c := range []struct {
		name string
		cfgs []*results.Config
		id   string
		want string
	}{
		{"requeue cheaper", []*results.Config{waker("futex", BenchWake, 16, "1", 500e3), waker("futex", BenchRequeue, 16, "1", 20e3)}, ClaimRequeueCheaper, results.Holds},
		{"requeue dearer", []*results.Config{waker("futex", BenchWake, 16, "1", 500e3), waker("futex", BenchRequeue, 16, "1", 20e3),
			waker("lot", BenchWake, 16, "all", 30e3), waker("lot", BenchRequeue, 16, "all", 31e3)}, ClaimRequeueCheaper, results.DoesNotHold},
		{"requeue without wake", []*results.Config{waker("futex", BenchRequeue, 16, "1", 20e3)}, ClaimRequeueCheaper, results.NotEvaluated},
		{"unparkall within 1.2x", []*results.Config{waker("futex", BenchWake, 16, "1", 100e3), waker("lot", BenchWake, 16, "all", 119e3)}, ClaimUnparkAll, results.Holds},
		{"unparkall beyond 1.2x", []*results.Config{waker("futex", BenchWake, 16, "1", 100e3), waker("lot", BenchWake, 16, "all", 121e3)}, ClaimUnparkAll, results.DoesNotHold},
		{"unparkall alone", []*results.Config{waker("lot", BenchWake, 16, "all", 121e3)}, ClaimUnparkAll, results.NotEvaluated},
		{"hash flat", []*results.Config{hashCfg("lot", 1, 10e6), hashCfg("lot", 2, 8.5e6)}, ClaimHashFlat, results.Holds},
		{"hash falls", []*results.Config{hashCfg("lot", 1, 10e6), hashCfg("lot", 2, 7.5e6)}, ClaimHashFlat, results.DoesNotHold},
		{"hash one count", []*results.Config{hashCfg("lot", 2, 7.5e6)}, ClaimHashFlat, results.NotEvaluated},
		{"448 gap", []*results.Config{pcCfg("lot", 100e3), pcCfg("std", 540e3)}, ClaimCondvar448, results.Holds},
		{"448 no gap", []*results.Config{pcCfg("lot", 500e3), pcCfg("std", 540e3)}, ClaimCondvar448, results.DoesNotHold},
		{"448 no std", []*results.Config{pcCfg("lot", 500e3)}, ClaimCondvar448, results.NotEvaluated},
	} {
		if got := verdicts(c.cfgs)[c.id]; got != c.want {
			t.Errorf("%s: %s = %q, want %q", c.name, c.id, got, c.want)
		}
	}
}

func TestMetricSpecs(t *testing.T) {
	if err := results.CheckSpecs(Metrics); err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, m := range Metrics {
		declared[m.Key] = true
	}
	for _, k := range SummaryKeys {
		if !declared[k] {
			t.Errorf("summary key %s is not described", k)
		}
	}
}

// TestRoundsCarryJudgedFigures: every judged figure of a waker
// configuration is in each of its rounds, so compare's test over rounds
// has samples (a figure only in the summary is judged without noise).
func TestRoundsCarryJudgedFigures(t *testing.T) {
	exp, err := Run(context.Background(), func() Options {
		o := tiny()
		o.Impls, o.Benches = []string{"lot"}, []string{BenchWake, BenchRequeue}
		return o
	}(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range exp.Configs {
		for _, m := range Metrics {
			if !m.Judged {
				continue
			}
			if _, inSummary := c.Summary[m.Key]; !inSummary {
				continue
			}
			for i, r := range c.Rounds {
				if _, ok := r.Metrics[m.Key]; !ok {
					t.Errorf("%s round %d lacks judged %s", c.Key, i, m.Key)
				}
			}
		}
	}
}

// wake-lot-unparkall and wake-condvar-448 flipped between two default runs
// on the AMD EPYC guest (1.91x once, 1.88x against 2x once): rounds on
// both sides of the limit decide on the median of the rounds' ratios and
// say near its limit; rounds that agree are clear.
func TestClaimsNearLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cs       []*results.Config
		id, want string
		near     bool
	}{
		{"unparkall straddles", []*results.Config{claimtest.Rounds(waker("futex", BenchWake, 16, "1", 0), MWakerMedian, 100e3, 100e3, 100e3),
			claimtest.Rounds(waker("lot", BenchWake, 16, "all", 0), MWakerMedian, 191e3, 110e3, 115e3)}, ClaimUnparkAll, results.Holds, true},
		{"unparkall clear", []*results.Config{claimtest.Rounds(waker("futex", BenchWake, 16, "1", 0), MWakerMedian, 100e3, 100e3, 100e3),
			claimtest.Rounds(waker("lot", BenchWake, 16, "all", 0), MWakerMedian, 191e3, 150e3, 135e3)}, ClaimUnparkAll, results.DoesNotHold, false},
		{"448 straddles", []*results.Config{claimtest.Rounds(pcCfg("lot", 0), MItemsPerSec, 100e3, 100e3, 100e3),
			claimtest.Rounds(pcCfg("std", 0), MItemsPerSec, 188e3, 230e3, 170e3)}, ClaimCondvar448, results.DoesNotHold, true},
		{"448 clear", []*results.Config{claimtest.Rounds(pcCfg("lot", 0), MItemsPerSec, 100e3, 100e3),
			claimtest.Rounds(pcCfg("std", 0), MItemsPerSec, 540e3, 500e3)}, ClaimCondvar448, results.Holds, false},
	} {
		c := claimtest.Find(t, Claims(tc.cs, 2), tc.id)
		if c.Verdict != tc.want || c.Near != tc.near || c.Near != (c.Margin != "") {
			t.Errorf("%s: %s near=%v margin %q (%s), want %s near=%v", tc.name, c.Verdict, c.Near, c.Margin, c.Evidence, tc.want, tc.near)
		}
	}
}

// wake-lot-hash-flat flipped between two default runs on the AMD EPYC guest
// (load 2-4): rounds whose flatness straddles 0.8 are near the limit.
func TestHashFlatNearLimit(t *testing.T) {
	for _, tc := range []struct {
		one, two []float64
		want     string
		near     bool
	}{
		{[]float64{60e6, 64e6, 62e6}, []float64{40e6, 58e6, 55e6}, results.Holds, true},
		{[]float64{60e6, 64e6, 62e6}, []float64{58e6, 60e6, 57e6}, results.Holds, false},
		{[]float64{60e6, 64e6, 62e6}, []float64{30e6, 35e6, 38e6}, results.DoesNotHold, false},
	} {
		cs := []*results.Config{claimtest.Rounds(hashCfg("lot", 1, 0), MOpsPerSec, tc.one...), claimtest.Rounds(hashCfg("lot", 2, 0), MOpsPerSec, tc.two...)}
		for _, c := range Claims(cs, 2) {
			if c.ID == ClaimHashFlat && (c.Verdict != tc.want || c.Near != tc.near) {
				t.Errorf("%v / %v: %s near=%v (%s), want %s near=%v", tc.one, tc.two, c.Verdict, c.Near, c.Margin, tc.want, tc.near)
			}
		}
	}
}
