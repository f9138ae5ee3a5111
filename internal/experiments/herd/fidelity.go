package herd

import (
	"fmt"
	"math"
	"slices"

	"github.com/parkbench/parkbench/internal/claim"
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
	return driver.Fidelity(configs, fidelityRules()...)
}

// original is the original's row in c's group.
func original(cs []*results.Config, c *results.Config) *results.Config {
	same := func(o *results.Config) bool { return group(o) == group(c) && o.Params["notify"] == c.Params["notify"] }
	return driver.Original(cs, same, driver.PreferGoThreads)
}

// fidelityFigures is a figure per lot configuration with an original
// beside it, notify-all, at N >= minN.
func fidelityFigures(minN int, f func(c, o *results.Config, row string) (claim.Figure, bool)) func([]*results.Config) []claim.Figure {
	return func(cs []*results.Config) (out []claim.Figure) {
		for _, c := range cs {
			if o := original(cs, c); c.Impl == results.PortLot && c.Params["notify"] == ModeAll && c.IntParam("n") >= minN && o != nil {
				if fig, ok := f(c, o, driver.RowName(o)); ok {
					out = append(out, fig)
				}
			}
		}
		return out
	}
}

func fidelityRules() []claim.Rule {
	return []claim.Rule{
		{ID: ClaimFidelityCsw, Statement: fmt.Sprintf("lot's herd takes the same participant context switches as parking_lot's own (rust-parking_lot): within %.0f%% + %d, notify=all, N >= %d",
			100*FidelityCswFrac, CswSlack, ClaimMinN),
			Needs: fmt.Sprintf("needs lot and rust-parking_lot with notify=all at N >= %d and their context switches", ClaimMinN),
			How:   "per group, |lot's switches - the original's median| in each repeat",
			Figures: fidelityFigures(ClaimMinN, func(c, o *results.Config, row string) (claim.Figure, bool) {
				a, okA := c.Summary[results.MCtxSwParts]
				b, okB := o.Summary[results.MCtxSwParts]
				var apart []float64
				for _, v := range claim.Values(c, results.MCtxSwParts) {
					apart = append(apart, math.Abs(v-b))
				}
				name := fmt.Sprintf("%s: lot %g vs %s %g, switches apart", group(c), a, row, b)
				return claim.Fig(name, apart, c, o).AtMost(FidelityCswFrac*max(a, b) + CswSlack), okA && okB
			})},
		// parking_lot's Condvar::notify_all returns only woken + requeued
		// (parking_lot 0.12.1 src/condvar.rs notify_all_slow), so a row that
		// cannot split the count (requeued unknown) is compared on that sum;
		// where both split it, on the requeued count.
		{ID: ClaimFidelityRequeue, Statement: "lot's notify_all moves as many waiters as parking_lot's own (rust-parking_lot): the same requeued count, or woken + requeued where the original reports only the sum, in every group both ran",
			Needs: "needs lot and rust-parking_lot with notify=all, and a count from both",
			Figures: fidelityFigures(0, func(c, o *results.Config, row string) (claim.Figure, bool) {
				for _, m := range []string{results.MRequeued, results.MReturn} {
					a, okA := c.Summary[m]
					b, okB := o.Summary[m]
					if okA && okB && a >= 0 && b >= 0 {
						what := "requeued"
						if m == results.MReturn {
							what = "woken + requeued"
						}
						// Counts, not times: the medians must be equal.
						return claim.Fig(fmt.Sprintf("%s: %s lot %g vs %s %g, apart", group(c), what, a, row, b), []float64{math.Abs(a - b)}, c, o).AtMost(0).Exact(), true
					}
				}
				return claim.Figure{}, false
			})},
		{ID: ClaimFidelityFirst, Statement: fmt.Sprintf("lot's first waiter holds the lock as soon as parking_lot's own (rust-parking_lot): within %.1fx, notify=all, at N = %d (else the largest N >= %d run)",
			FidelityFirst, FirstN, ClaimMinN),
			Needs: fmt.Sprintf("needs lot and rust-parking_lot with notify=all at N >= %d", ClaimMinN),
			Figures: func(cs []*results.Config) []claim.Figure {
				all := fidelityFigures(ClaimMinN, func(c, o *results.Config, row string) (claim.Figure, bool) {
					name := fmt.Sprintf("%s: lot %s vs %s %s, lot/original first", group(c), claim.Us(c.Summary[results.MFirstNs]), row, claim.Us(o.Summary[results.MFirstNs]))
					return claim.Fig(name, driver.Ratios(c, o, results.MFirstNs), c, o).In("x").AtLeast(1 / FidelityFirst).AtMost(FidelityFirst), true
				})(cs)
				var ported []*results.Config
				for _, f := range all {
					ported = append(ported, f.Of[0])
				}
				n := firstN(ported) // FirstN when both ran it, else the largest N >= ClaimMinN
				return slices.DeleteFunc(all, func(f claim.Figure) bool { return f.Of[0].IntParam("n") != n })
			}},
	}
}
