package lock

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/results"
)

// lockCfg is a synthetic zero-work loop configuration with its throughput
// per repeat.
func lockCfg(impl, kind, threads string, mops ...float64) *results.Config {
	c := &results.Config{Key: impl + "/in=0s/between=0s/locks=1/t=" + threads, Impl: impl, Kind: kind,
		Params: map[string]string{"pattern": "loop", "work_in": "0s", "work_between": "0s", "locks": "1", "threads": threads}}
	if kind == results.KindCRef {
		// The original's row on C threads: its own loop (ABI version 2).
		c.Params[ext.LoopParam] = ext.LoopOwn
	}
	return claimtest.Rounds(c, MTotalMops, mops...)
}

func TestFidelityLock(t *testing.T) {
	orig1 := lockCfg("c-rust-parking_lot", results.KindCRef, "1", 185, 190, 182)
	orig2 := lockCfg("c-rust-parking_lot", results.KindCRef, "2", 118, 120, 113)
	cases := []struct {
		name    string
		cfgs    []*results.Config
		verdict string
		why     string
	}{
		{"at speed", []*results.Config{lockCfg("lot", "go-lock", "1", 180, 178, 181), orig1, lockCfg("lot", "go-lock", "2", 110, 112, 115), orig2}, results.Holds, ""},
		{"faster is fine", []*results.Config{lockCfg("lot", "go-lock", "1", 250), orig1}, results.Holds, ""},
		{"half speed", []*results.Config{lockCfg("lot", "go-lock", "1", 90, 95, 100), orig1, lockCfg("lot", "go-lock", "2", 110), orig2}, results.DoesNotHold,
			"t=1: lot 95.0 vs c-rust-parking_lot (C threads) 185.0 Mops/s, lot/original 0.51x, limit at least 0.90x"},
		// Two noisy repeats of the original: the ratio of the medians
		// (x0.65) decides, not the mean of the paired ratios (0.98).
		{"noisy original", []*results.Config{lockCfg("lot", "go-lock", "1", 37, 37), lockCfg("c-rust-parking_lot", results.KindCRef, "1", 90, 24)}, results.DoesNotHold, "lot/original 0.65x, limit at least 0.90x"},
		// lot on plain goroutines is not compared with the C threads.
		{"goroutines", []*results.Config{func() *results.Config {
			c := lockCfg("lot", "go-lock", "1", 30)
			c.Params["participants"] = driver.Goroutines
			return c
		}(), orig1}, results.NotEvaluated, "needs"},
		// 4 threads is not judged; the original only through cgo is not either.
		{"4 threads", []*results.Config{lockCfg("lot", "go-lock", "4", 50), lockCfg("c-rust-parking_lot", results.KindCRef, "4", 120)}, results.NotEvaluated, "needs"},
		{"cgo row only", []*results.Config{lockCfg("lot", "go-lock", "1", 100), lockCfg("rust-parking_lot", "plugin", "1", 15)}, results.NotEvaluated, "C threads"},
		// The function pointers' loop is not the original's speed: only
		// its own loop is judged against.
		{"function pointers only", []*results.Config{lockCfg("lot", "go-lock", "1", 80), func() *results.Config {
			c := lockCfg("c-rust-parking_lot", results.KindCRef, "1", 75)
			c.Params[ext.LoopParam] = ext.LoopFuncPointers
			return c
		}()}, results.NotEvaluated, "its own loop"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs := FidelityClaims(tc.cfgs)
			if len(cs) != 1 {
				t.Fatalf("%d claims", len(cs))
			}
			c := cs[0]
			if c.Verdict != tc.verdict || !strings.Contains(c.Why, tc.why) || strings.Contains(c.Why, "\n") {
				t.Errorf("%s %q, want %s with %q (%s)", c.Verdict, c.Why, tc.verdict, tc.why, c.Evidence)
			}
			if c.Verdict != results.Holds && c.Why == "" {
				t.Error("no reason")
			}
		})
	}
	if cs := Claims([]*results.Config{lockCfg("lot", "go-lock", "1", 100)}, 2); len(cs) != 5 {
		t.Errorf("without the original Claims has %d claims, want the 5 of before (4, and lock-pi-price)", len(cs))
	}
}
