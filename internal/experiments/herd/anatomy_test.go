package herd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
)

// traceCfg is a traced notify-all configuration of impl at n with the
// given per-repeat "slept again" counts (every waiter placed).
func traceCfg(impl string, n int, slept ...float64) *results.Config {
	c := &results.Config{Key: impl + "/unpinned/notify=notify-all/lock-held=true/n=" + strconv.Itoa(n), Impl: impl,
		Params: map[string]string{"n": strconv.Itoa(n), "notify": ModeAll, "lock_held": "true"}}
	for _, s := range slept {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{
			anatomy.MHerdSleptAgain: s, anatomy.MHerdTraced: float64(n), anatomy.MHerdRunnable: 0}})
	}
	return c
}

func traceVerdict(t *testing.T, cs ...*results.Config) results.Claim {
	t.Helper()
	cl := TraceClaims(cs)
	if len(cl) != 1 || cl[0].ID != ClaimTraceResleep {
		t.Fatalf("got %+v, want the one claim %s", cl, ClaimTraceResleep)
	}
	return cl[0]
}

func TestTraceClaimHolds(t *testing.T) {
	cl := traceVerdict(t, traceCfg("lot", 16, 0, 0, 0), traceCfg("futex-broadcast", 16, 15, 0, 7), traceCfg("pthread", 16, 16, 12, 4))
	if cl.Verdict != results.Holds {
		t.Fatalf("got %s (%s), want holds", cl.Verdict, cl.Why)
	}
	if !strings.Contains(cl.Evidence, "futex-broadcast/unpinned/notify=notify-all/lock-held=true/n=16 (broadcast) waiters of 16 that slept again 7") {
		t.Fatalf("evidence does not quote the median count: %s", cl.Evidence)
	}
}

func TestTraceClaimFails(t *testing.T) {
	// A requeue where waiters slept again in most repeats: fails, naming
	// it; one stray repeat does not (medians, as every herd claim).
	if cl := traceVerdict(t, traceCfg("lot", 16, 0, 1, 0), traceCfg("futex-broadcast", 16, 15, 15, 15)); cl.Verdict != results.Holds {
		t.Fatalf("one stray resleep of lot: got %s (%s), want holds", cl.Verdict, cl.Why)
	}
	cl := traceVerdict(t, traceCfg("lot", 16, 2, 1, 0), traceCfg("futex-broadcast", 16, 15, 15, 15))
	if cl.Verdict != results.DoesNotHold || !strings.Contains(cl.Why, "lot/") || !strings.Contains(cl.Why, "requeue") {
		t.Fatalf("requeue with a resleep: got %s (%s), want does not hold naming lot", cl.Verdict, cl.Why)
	}
	// A broadcast where, at the median, nobody slept again (one CPU
	// free: the woken ran one after another): fails, naming it.
	cl = traceVerdict(t, traceCfg("lot", 16, 0, 0, 0), traceCfg("futex-broadcast", 16, 0, 3, 0))
	if cl.Verdict != results.DoesNotHold || !strings.Contains(cl.Why, "futex-broadcast/") {
		t.Fatalf("broadcast without resleeps: got %s (%s), want does not hold naming futex-broadcast", cl.Verdict, cl.Why)
	}
}

func TestTraceClaimBroadcastReleasedNotJudged(t *testing.T) {
	released := traceCfg("futex-broadcast", 16, 0, 0, 0)
	released.Params["lock_held"] = "false"
	cl := traceVerdict(t, traceCfg("lot", 16, 0), traceCfg("futex-broadcast", 16, 16), released)
	if cl.Verdict != results.Holds || !strings.Contains(cl.Evidence, "listed, not judged") {
		t.Fatalf("got %s (%s), want holds with the released broadcast listed", cl.Verdict, cl.Evidence)
	}
	// A requeue with the mutex released is judged: it must not herd.
	lotReleased := traceCfg("lot", 16, 3, 2, 0)
	lotReleased.Params["lock_held"] = "false"
	if cl := traceVerdict(t, traceCfg("futex-broadcast", 16, 16), lotReleased); cl.Verdict != results.DoesNotHold {
		t.Fatalf("requeue with the mutex released and a resleep: got %s", cl.Verdict)
	}
}

func TestTraceClaimNotEvaluated(t *testing.T) {
	for name, cs := range map[string][]*results.Config{
		"no requeue":                {traceCfg("futex-broadcast", 16, 15)},
		"no broadcast":              {traceCfg("lot", 16, 0)},
		"N below 16":                {traceCfg("lot", 4, 0), traceCfg("futex-broadcast", 4, 1)},
		"lot-wakeall is not judged": {traceCfg("lot", 16, 0), traceCfg("lot-wakeall", 16, 0)},
	} {
		if cl := traceVerdict(t, cs...); cl.Verdict != results.NotEvaluated || cl.Why == "" {
			t.Errorf("%s: got %s (%q), want not evaluated with a reason", name, cl.Verdict, cl.Why)
		}
	}
	// Repeats where the trace placed fewer than half the waiters are not
	// judged: a broadcast whose only repeats lost the trace says nothing.
	b := traceCfg("futex-broadcast", 16, 0, 0)
	for _, r := range b.Rounds {
		r.Metrics[anatomy.MHerdTraced] = 5
	}
	if cl := traceVerdict(t, traceCfg("lot", 16, 0), b); cl.Verdict != results.NotEvaluated || !strings.Contains(cl.Evidence, "not judged") {
		t.Fatalf("untraced broadcast: got %s (%s), want not evaluated", cl.Verdict, cl.Evidence)
	}
	// Untraced configurations (no --anatomy) say nothing either.
	plain := &results.Config{Key: "lot/x/n=16", Impl: "lot", Params: map[string]string{"n": "16", "notify": ModeAll}, Rounds: []results.Round{{Metrics: map[string]float64{}}}}
	if cl := traceVerdict(t, plain); cl.Verdict != results.NotEvaluated {
		t.Fatalf("untraced: got %s", cl.Verdict)
	}
}
