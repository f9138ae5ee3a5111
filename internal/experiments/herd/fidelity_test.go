package herd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
)

// fcfg is a synthetic herd configuration: impl, kind, n (notify=all, lock
// held, unpinned) and its summary.
func fcfg(impl, kind string, n int, sum map[string]float64) *results.Config {
	return &results.Config{Key: impl + "/unpinned/notify=all/lock-held=true/n=" + strconv.Itoa(n), Impl: impl, Kind: kind, Placement: "unpinned",
		Params:  map[string]string{"n": strconv.Itoa(n), "notify": ModeAll, "lock_held": "true"},
		Summary: sum}
}

func fidSum(first, csw, ret, requeued float64) map[string]float64 {
	m := map[string]float64{results.MFirstNs: first, results.MCtxSwParts: csw, results.MReturn: ret}
	if requeued >= 0 {
		m[results.MRequeued] = requeued
	}
	return m
}

func TestFidelityClaimsAbsentWithoutOriginal(t *testing.T) {
	cs := []*results.Config{fcfg("lot", "thread", 64, fidSum(50000, 96, 64, 64)), fcfg("futex-broadcast", "thread", 64, fidSum(90000, 120, -1, 0))}
	if got := FidelityClaims(cs); got != nil {
		t.Fatalf("claims without the original: %+v", got)
	}
	for _, c := range Claims(cs, 0) {
		if strings.HasPrefix(c.ID, "E6-fidelity") {
			t.Errorf("Claims has %s without the original", c.ID)
		}
	}
}

func TestFidelityClaims(t *testing.T) {
	lot := func(n int, first, csw float64) *results.Config {
		return fcfg("lot", "thread", n, fidSum(first, csw, float64(n), float64(n)))
	}
	// The original from C threads reports only the sum (requeued unknown).
	orig := func(n int, first, csw, ret float64) *results.Config {
		return fcfg("c-rust-parking_lot", "c-reference", n, fidSum(first, csw, ret, -1))
	}
	cases := []struct {
		name string
		cfgs []*results.Config
		want map[string]string
		why  map[string]string
	}{
		{"same", []*results.Config{lot(16, 40000, 22), orig(16, 38000, 20, 16), lot(64, 55000, 96), orig(64, 50000, 100, 64)},
			map[string]string{ClaimFidelityCsw: results.Holds, ClaimFidelityRequeue: results.Holds, ClaimFidelityFirst: results.Holds}, nil},
		// 96 vs 140: limit 0.25 x 140 + 4 = 39, diff 44.
		{"more switches", []*results.Config{lot(64, 55000, 96), orig(64, 50000, 140, 64)},
			map[string]string{ClaimFidelityCsw: results.DoesNotHold, ClaimFidelityRequeue: results.Holds, ClaimFidelityFirst: results.Holds},
			map[string]string{ClaimFidelityCsw: "n=64 unpinned held=true: lot 96 vs c-rust-parking_lot (C threads) 140"}},
		{"fewer moved", []*results.Config{lot(64, 55000, 96), orig(64, 50000, 100, 63)},
			map[string]string{ClaimFidelityRequeue: results.DoesNotHold},
			map[string]string{ClaimFidelityRequeue: "woken + requeued lot 64 vs c-rust-parking_lot (C threads) 63"}},
		// 1.25x slower, and 1.25x faster: both fail (within both ways).
		{"first slower", []*results.Config{lot(64, 62500, 96), orig(64, 50000, 100, 64)},
			map[string]string{ClaimFidelityFirst: results.DoesNotHold}, map[string]string{ClaimFidelityFirst: "1.25x"}},
		{"first faster", []*results.Config{lot(64, 40000, 96), orig(64, 50000, 100, 64)},
			map[string]string{ClaimFidelityFirst: results.DoesNotHold}, map[string]string{ClaimFidelityFirst: "0.80x"}},
		// Only N = 4: below ClaimMinN, not judged (the requeue count is).
		{"small n only", []*results.Config{lot(4, 20000, 5), orig(4, 20000, 5, 4)},
			map[string]string{ClaimFidelityCsw: results.NotEvaluated, ClaimFidelityRequeue: results.Holds, ClaimFidelityFirst: results.NotEvaluated}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := FidelityClaims(tc.cfgs)
			if len(got) != 3 {
				t.Fatalf("%d claims, want 3", len(got))
			}
			for id, v := range tc.want {
				claimtest.Want(t, id, claimtest.Find(t, got, id), v)
			}
			for id, w := range tc.why {
				if c := claimtest.Find(t, got, id); !strings.Contains(c.Why, w) {
					t.Errorf("%s: why %q, want it to contain %q", id, c.Why, w)
				}
			}
		})
	}
}

// The original's row from Go threads (through cgo) counts when there is no
// C-thread row, and the split count is compared when both report it.
func TestFidelityGoRowAndSplit(t *testing.T) {
	cs := []*results.Config{
		fcfg("lot", "thread", 64, fidSum(50000, 96, 64, 64)),
		fcfg("rust-parking_lot", "plugin", 64, fidSum(50000, 96, 64, 0)),
	}
	got := FidelityClaims(cs)
	rq := claimtest.Find(t, got, ClaimFidelityRequeue)
	if rq.Verdict != results.DoesNotHold || !strings.Contains(rq.Why, "requeued lot 64 vs rust-parking_lot (Go threads, through cgo) 0") {
		t.Errorf("split requeue: %s %q", rq.Verdict, rq.Why)
	}
	if f := claimtest.Find(t, got, ClaimFidelityFirst); f.Verdict != results.Holds {
		t.Errorf("first on the Go row: %s %s", f.Verdict, f.Evidence)
	}
}
