package selfwake

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/results"
)

func swCfg(impl string, nsPerPair, csw float64) *results.Config {
	return &results.Config{Key: impl, Impl: impl, Summary: map[string]float64{results.MNsPerPair: nsPerPair, MCtxSwPerPair: csw}}
}

// fidCfg is a synthetic configuration with one metric, per round and as
// the median of the rounds.
func fidCfg(impl, kind, metric string, rounds ...float64) *results.Config {
	return claimtest.Rounds(&results.Config{Key: impl, Impl: impl, Kind: kind, Params: map[string]string{}}, metric, rounds...)
}

func TestSelfwakeAtOnce(t *testing.T) {
	ok := &results.Experiment{Configs: []*results.Config{swCfg("futex", 150, 0), swCfg("std", 10, 0.00001)}}
	claimtest.Want(t, "no switches", claim.Evaluate(atOnceRule, ok.Configs), results.Holds)
	bad := &results.Experiment{Configs: []*results.Config{swCfg("futex", 150, 0.5)}}
	claimtest.Want(t, "half a switch per pair", claim.Evaluate(atOnceRule, bad.Configs), results.DoesNotHold)
	claimtest.Want(t, "empty", claim.Evaluate(atOnceRule, nil), results.NotEvaluated)
}

func TestFidelitySelfwake(t *testing.T) {
	exp := func(cfgs ...*results.Config) *results.Experiment { return &results.Experiment{Configs: cfgs} }
	orig := fidCfg("c-rust-parking_lot", results.KindCRef, results.MNsPerPair, 11, 12, 11.5)
	orig.Params[ext.LoopParam] = ext.LoopOwn
	fp := fidCfg("c-rust-parking_lot", results.KindCRef, results.MNsPerPair, 15)
	fp.Params[ext.LoopParam] = ext.LoopFuncPointers
	cases := []struct {
		name    string
		exp     *results.Experiment
		verdict string
		why     string
	}{
		{"within", exp(fidCfg("lot", "thread", results.MNsPerPair, 13, 14, 14.5), orig), results.Holds, ""},
		{"faster is fine", exp(fidCfg("lot", "thread", results.MNsPerPair, 8, 9, 8.5), orig), results.Holds, ""},
		{"slower", exp(fidCfg("lot", "thread", results.MNsPerPair, 28, 29, 27), orig), results.DoesNotHold, "lot 28.0 ns vs c-rust-parking_lot (C threads) 11.5 ns per pair, lot/original 2.43x, limit at most 1.30x"},
		// Only the row through cgo: a call costs more than the pair.
		{"Go row only", exp(fidCfg("lot", "thread", results.MNsPerPair, 14),
			fidCfg("rust-parking_lot", "plugin", results.MNsPerPair, 60)), results.NotEvaluated, "C threads"},
		// Only the function pointers' loop: not the original's own.
		{"function pointers only", exp(fidCfg("lot", "thread", results.MNsPerPair, 14), fp), results.NotEvaluated, "its own self-wake loop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := one(t, driver.Fidelity(tc.exp.Configs, fidelityRule))
			if c.Verdict != tc.verdict {
				t.Errorf("%s, want %s (%s)", c.Verdict, tc.verdict, c.Evidence)
			}
			if !strings.Contains(c.Why, tc.why) {
				t.Errorf("why %q, want %q in it", c.Why, tc.why)
			}
		})
	}
}

func one(t *testing.T, cs []results.Claim) results.Claim {
	t.Helper()
	if len(cs) != 1 || cs[0].ID != ClaimFidelitySelf {
		t.Fatalf("claims %+v, want %s", cs, ClaimFidelitySelf)
	}
	if c := cs[0]; c.Verdict != results.Holds && (c.Why == "" || strings.Contains(c.Why, "\n")) {
		t.Errorf("%s: the reason must be one line: %q", c.Verdict, c.Why)
	}
	return cs[0]
}
