package herd

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity (E6): lot's herd beside parking_lot's own Condvar and Mutex
// (rust-parking_lot, loaded from rust/originals), in the groups both ran.
// The claims exist only in a run that has the original.
const (
	ClaimFidelityCsw     = "E6-fidelity-ctxsw"
	ClaimFidelityRequeue = "E6-fidelity-requeue"
	ClaimFidelityFirst   = "E6-fidelity-first"

	// FidelityCswFrac and CswSlack: the same context switches means
	// |lot - original| <= 25% of the larger + CswSlack. Participants switch
	// about 1.5 N times at N >= 16 (a woken waiter sleeps again on the
	// mutex when the requeue put it behind a holder); which of them find
	// the mutex free varies from repeat to repeat by a few N/10, and lot
	// runs on Go threads where a blocking call can hand the P to another
	// thread (a switch the C threads do not take).
	FidelityCswFrac = 0.25
	// FidelityFirst: the first waiter's time, within 1.2x both ways.
	FidelityFirst = 1.2
)

// FidelityClaims compares lot with the original's rows (from Go threads
// when run there: the same harness, the cgo call under 1% of a herd; else
// from C threads): nil when the original was not run.
func FidelityClaims(configs []*results.Config) []results.Claim {
	if !driver.OriginalLoaded(configs, driver.OriginalLot) {
		return nil
	}
	cs := claimCfgs(configs)
	return []results.Claim{fidelityCsw(cs, configs), fidelityRequeue(cs, configs), fidelityFirst(cs, configs)}
}

// originalOf is the original's row in h's group.
func originalOf(configs []*results.Config, h claimCfg) (*results.Config, bool) {
	same := func(c *results.Config) bool {
		n := c.Params["n"]
		return n == fmt.Sprint(h.n) && c.Placement == h.placement && c.Params["notify"] == h.notify && c.Params["lock_held"] == h.held
	}
	return driver.Original(configs, driver.OriginalLot, same, driver.PreferGoThreads)
}

func groupName(h claimCfg) string {
	return fmt.Sprintf("n=%d %s held=%s", h.n, h.placement, h.held)
}

func fidelityCsw(cs []claimCfg, configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimFidelityCsw,
		Statement: fmt.Sprintf("lot's herd takes the same participant context switches as parking_lot's own (rust-parking_lot): within %.0f%% + %d, notify=all, N >= %d",
			100*FidelityCswFrac, CswSlack, ClaimMinN)}
	var fid driver.Fidelity
	for _, h := range cs {
		if h.impl != driver.PortLot || h.notify != ModeAll || h.n < ClaimMinN {
			continue
		}
		o, onC := originalOf(configs, h)
		if o == nil {
			continue
		}
		a, okA := h.c.Summary[results.MCtxSwParts]
		b, okB := o.Summary[results.MCtxSwParts]
		if !okA || !okB {
			continue
		}
		e := fmt.Sprintf("%s: lot %g vs %s %g", groupName(h), a, driver.RowName(o, onC), b)
		fid.Add(e, results.Limit{Figure: e, Rounds: roundDiffs(h.c, results.MCtxSwParts, b),
			Limit: FidelityCswFrac*max(a, b) + CswSlack, AtMost: true})
	}
	fid.Judge(&cl, fmt.Sprintf("needs lot and rust-parking_lot with notify=all at N >= %d and their context switches", ClaimMinN))
	return cl
}

// roundDiffs is |the port's figure - ref| per repeat.
func roundDiffs(c *results.Config, metric string, ref float64) []float64 {
	var out []float64
	for _, v := range results.RoundValues(c, metric) {
		out = append(out, abs(v-ref))
	}
	return out
}

// fidelityRequeue: the requeue count. parking_lot's Condvar::notify_all
// returns only woken + requeued (parking_lot 0.12.1 src/condvar.rs
// notify_all_slow), so a row that cannot split the count (requeued
// unknown) is compared on that sum; where both split it, on the requeued
// count.
func fidelityRequeue(cs []claimCfg, configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimFidelityRequeue,
		Statement: "lot's notify_all moves as many waiters as parking_lot's own (rust-parking_lot): the same requeued count, or woken + requeued where the original reports only the sum, in every group both ran"}
	var fid driver.Fidelity
	for _, h := range cs {
		if h.impl != driver.PortLot || h.notify != ModeAll {
			continue
		}
		o, onC := originalOf(configs, h)
		if o == nil {
			continue
		}
		metric, what := results.MRequeued, "requeued"
		a, okA := h.c.Summary[metric]
		b, okB := o.Summary[metric]
		if !okA || !okB || a < 0 || b < 0 {
			metric, what = results.MReturn, "woken + requeued"
			a, okA = h.c.Summary[metric]
			b, okB = o.Summary[metric]
		}
		if !okA || !okB || a < 0 || b < 0 {
			continue
		}
		e := fmt.Sprintf("%s: %s lot %g vs %s %g", groupName(h), what, a, driver.RowName(o, onC), b)
		// Counts, not times: the medians must be equal.
		fid.Add(e, results.Limit{Figure: e, Rounds: []float64{abs(a - b)}, Limit: 0, AtMost: true})
	}
	fid.Judge(&cl, "needs lot and rust-parking_lot with notify=all, and a count from both")
	return cl
}

func fidelityFirst(cs []claimCfg, configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimFidelityFirst,
		Statement: fmt.Sprintf("lot's first waiter holds the lock as soon as parking_lot's own (rust-parking_lot): within %.1fx, notify=all, at N = %d (else the largest N >= %d run)",
			FidelityFirst, FirstN, ClaimMinN)}
	// The N: FirstN when both ran it, else the largest N >= ClaimMinN.
	n := 0
	for _, h := range cs {
		if h.impl == driver.PortLot && h.notify == ModeAll && h.n >= ClaimMinN {
			if o, _ := originalOf(configs, h); o != nil && (h.n == FirstN || (n != FirstN && h.n > n)) {
				n = h.n
			}
		}
	}
	var fid driver.Fidelity
	for _, h := range cs {
		if h.impl != driver.PortLot || h.notify != ModeAll || h.n != n {
			continue
		}
		o, onC := originalOf(configs, h)
		if o == nil {
			continue
		}
		a, b := h.c.Summary[results.MFirstNs], o.Summary[results.MFirstNs]
		r, _ := driver.Within(a, b, FidelityFirst)
		e := fmt.Sprintf("%s: lot %s vs %s %s (x%.2f)", groupName(h), fmtUs(a), driver.RowName(o, onC), fmtUs(b), r)
		fid.Add(e, driver.FidelityLimits(e, h.c, o, results.MFirstNs, FidelityFirst)...)
	}
	fid.Judge(&cl, fmt.Sprintf("needs lot and rust-parking_lot with notify=all at N >= %d", ClaimMinN))
	return cl
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
