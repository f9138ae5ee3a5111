package inversion

import (
	"fmt"
	"strings"

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
// only Params and Summary).
func Claims(cfgs []*results.Config) []results.Claim {
	return []results.Claim{
		judge(cfgs, "true", results.Claim{ID: ClaimPIBounded, Statement: fmt.Sprintf(
			"priority inheritance bounds the inversion: pi-futex's and pthread-pi's p99 wait is at most %.0fx the critical section "+
				"(the kernel runs the owner at the waiter's priority, so medium cannot preempt it)", piBound)},
			"needs pi-futex or pthread-pi",
			func(cf *results.Config) (string, bool) {
				cs, p99 := cf.Summary[MCritical], cf.Summary[results.MP99]
				line := fmt.Sprintf("%s p99 %.0f µs = %.1fx the %.0f µs section", cf.Impl, p99/1e3, p99/cs, cs/1e3)
				if st := cf.Summary[MSteal]; st > 0 {
					// A round the host preempted is longer by what it took, in
					// PI's favour or not: said beside the figure, not judged.
					line += fmt.Sprintf(" (the host stole %.0f ms of the measured CPU during its rounds)", st/1e6)
				}
				return line, cs > 0 && p99 <= piBound*cs
			}),
		judge(cfgs, "false", results.Claim{ID: ClaimNoPIInverts, Statement: fmt.Sprintf(
			"the locks without inheritance do not bound it: their median wait includes medium's spin (at least %.0f%% of it), "+
				"since medium outranks the owner and runs first", inversionShare*100)},
			"needs a lock without inheritance (std-futex, lot, sync, pthread)",
			func(cf *results.Config) (string, bool) {
				med, spin := cf.Summary[results.MMedian], cf.Summary[MMediumNs]
				return fmt.Sprintf("%s median %.0f µs (spin %.0f µs)", cf.Impl, med/1e3, spin/1e3), spin > 0 && med >= inversionShare*spin
			}),
	}
}

// judge evaluates c over the configurations whose pi param is pi: it
// holds when test holds for every one of them, the failing ones first in
// the evidence.
func judge(cfgs []*results.Config, pi string, c results.Claim, none string, test func(*results.Config) (string, bool)) results.Claim {
	var ok, bad []string
	for _, cf := range cfgs {
		if cf.Params["pi"] != pi {
			continue
		}
		if line, good := test(cf); good {
			ok = append(ok, line)
		} else {
			bad = append(bad, line)
		}
	}
	switch {
	case len(ok)+len(bad) == 0:
		c.Verdict, c.Evidence, c.Why = results.NotEvaluated, none, none
	case len(bad) > 0:
		c.Verdict, c.Evidence = results.DoesNotHold, "not met: "+strings.Join(bad, "; ")
		c.Why = bad[0]
		if len(bad) > 1 {
			c.Why += fmt.Sprintf(" (and %d more)", len(bad)-1)
		}
		if len(ok) > 0 {
			c.Evidence += "; met: " + strings.Join(ok, "; ")
		}
	default:
		c.Verdict, c.Evidence = results.Holds, strings.Join(ok, "; ")
	}
	return c
}
