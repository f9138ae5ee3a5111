package inversion

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs.
const (
	ClaimPIBounded   = "inversion-pi-bounded"
	ClaimNoPIInverts = "inversion-others-unbounded"
)

// Thresholds.
const (
	// piBound: a PI lock's p99 wait is at most this many critical
	// sections (the rest of low's section, plus two context switches and
	// the kernel's handoff, well inside one more section on any machine).
	piBound = 3.0
	// inversionShare: a lock without PI inverts when its median wait is
	// at least this share of medium's spin (medium starts its spin when
	// high blocks, so the wait is the whole spin, less nothing).
	inversionShare = 0.5
)

// Claims evaluates the claims from the configurations (pure: it reads
// only Params and Summary, or each round's figures where recorded).
func Claims(cfgs []*results.Config) []results.Claim {
	return claim.EvaluateAll(cfgs,
		claim.Rule{ID: ClaimPIBounded, Statement: fmt.Sprintf(
			"priority inheritance bounds the inversion: pi-futex's and pthread-pi's p99 wait is at most %.0fx the critical section "+
				"(the kernel runs the owner at the waiter's priority, so medium cannot preempt it)", piBound),
			Needs: "needs pi-futex or pthread-pi", Select: func(c *results.Config) bool { return c.Params["pi"] == "true" },
			Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
				note := fmt.Sprintf("p99 %.0f µs, section %.0f µs", c.Summary[results.MP99]/1e3, c.Summary[MCritical]/1e3)
				if st := c.Summary[MSteal]; st > 0 {
					// A round the host preempted is longer by what it took, in
					// PI's favour or not: said beside the figure, not judged.
					note += fmt.Sprintf("; the host stole %.0f ms of the measured CPU during its rounds", st/1e6)
				}
				return []claim.Figure{claim.Fig(c.Impl+" p99/section", claim.Share(c, results.MP99, MCritical), c).In("x").AtMost(piBound).With(note)}
			}},
		claim.Rule{ID: ClaimNoPIInverts, Statement: fmt.Sprintf(
			"the locks without inheritance do not bound it: their median wait includes medium's spin (at least %.0f%% of it), "+
				"since medium outranks the owner and runs first", inversionShare*100),
			Needs: "needs a lock without inheritance (std-futex, lot, sync, pthread)", Select: func(c *results.Config) bool { return c.Params["pi"] == "false" },
			Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
				return []claim.Figure{claim.Fig(c.Impl+" median wait/medium's spin", claim.Share(c, results.MMedian, MMediumNs), c).In("x").AtLeast(inversionShare).
					With(fmt.Sprintf("median %.0f µs, spin %.0f µs", c.Summary[results.MMedian]/1e3, c.Summary[MMediumNs]/1e3))}
			}},
	)
}
