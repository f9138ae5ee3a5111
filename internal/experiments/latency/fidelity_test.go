package latency

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// fidCfg is a synthetic configuration with one metric, per round and as
// the median of the rounds.
func fidCfg(impl, kind, placement, metric string, rounds ...float64) *results.Config {
	return claimtest.Rounds(&results.Config{Key: impl + "/" + placement, Impl: impl, Kind: kind, Placement: placement,
		Params: map[string]string{"gap": "0s", "sleeps": "true"}}, metric, rounds...)
}

func TestFidelityCrossCore(t *testing.T) {
	cross := driver.CrossCore
	exp := func(cfgs ...*results.Config) *results.Experiment { return &results.Experiment{Configs: cfgs} }
	cases := []struct {
		name    string
		exp     *results.Experiment
		verdict string
		near    bool
		why     string
	}{
		{"within", exp(fidCfg("lot", "thread", cross, results.MMedian, 13000, 13500, 14000),
			fidCfg("rust-parking_lot", "plugin", cross, results.MMedian, 14000, 14200, 13900)), results.Holds, false, ""},
		{"lot slower", exp(fidCfg("lot", "thread", cross, results.MMedian, 16000, 16500, 17000),
			fidCfg("rust-parking_lot", "plugin", cross, results.MMedian, 14000)), results.DoesNotHold, false, "lot/original 1.18x"},
		// Faster beyond 1.1x is not the same either.
		{"lot faster", exp(fidCfg("lot", "thread", cross, results.MMedian, 11000, 11500, 12000),
			fidCfg("rust-parking_lot", "plugin", cross, results.MMedian, 14000)), results.DoesNotHold, false, "lot/original 0.82x"},
		// Rounds on both sides of the limit: decided, but near it.
		{"straddles", exp(fidCfg("lot", "thread", cross, results.MMedian, 14000, 15000, 16000),
			fidCfg("rust-parking_lot", "plugin", cross, results.MMedian, 14000, 14000, 14000)), results.Holds, true, ""},
		// One noisy round each way (x0.80, x0.95, x1.30): decided on the
		// median ratio, near its limits.
		{"noisy rounds", exp(fidCfg("lot", "thread", cross, results.MMedian, 11200, 13300, 18200),
			fidCfg("rust-parking_lot", "plugin", cross, results.MMedian, 14000, 14000, 14000)), results.Holds, true, ""},
		// Only the C-thread row: taken, and named.
		{"C row", exp(fidCfg("lot", "thread", cross, results.MMedian, 20000),
			fidCfg("c-rust-parking_lot", results.KindCRef, cross, results.MMedian, 14000)), results.DoesNotHold, false, "c-rust-parking_lot (C threads)"},
		// The original only on another placement: not evaluated.
		{"no cross-core", exp(fidCfg("lot", "thread", "same-core", results.MMedian, 20000),
			fidCfg("rust-parking_lot", "plugin", "same-core", results.MMedian, 14000)), results.NotEvaluated, false, "cross-core"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := claimtest.Find(t, FidelityClaims(tc.exp), ClaimFidelityCross)
			claimtest.Want(t, tc.name, c, tc.verdict)
			if c.Near != tc.near {
				t.Errorf("near=%v, want near=%v (%s; %s)", c.Near, tc.near, c.Evidence, c.Margin)
			}
			if !strings.Contains(c.Why, tc.why) {
				t.Errorf("why %q, want %q in it", c.Why, tc.why)
			}
		})
	}
	// Without the original nothing is added.
	if got := FidelityClaims(exp(fidCfg("lot", "thread", cross, results.MMedian, 13000))); got != nil {
		t.Errorf("claims without the original: %+v", got)
	}
}
