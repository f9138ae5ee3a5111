package timeout

import (
	"fmt"
	"slices"
	"time"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Claim IDs of the timeout experiment.
const (
	ClaimNoEarlyReturn  = "timeout-never-early"
	ClaimSlackDominates = "timeout-slack-dominates"
)

// Thresholds of the slack claim.
const (
	// slackShortDeadline: deadlines up to this count as short, i.e.
	// commensurate with the 50 µs slack. Longer waits also pay the slack,
	// but on a VM their overshoot includes tens of µs of waking an idle
	// vCPU, which no slack setting removes.
	slackShortDeadline = 100 * time.Microsecond
	// slackSmall: a slack at most this counts as "1 ns slack".
	slackSmall = time.Microsecond
	// slackShare: the default slack must account for at least this share
	// of the default-slack median overshoot.
	slackShare = 0.5
	// slackPairsNeeded: share of (impl, deadline) pairs that must show it.
	slackPairsNeeded = 0.75
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads only Params and Summary).
func Claims(cfgs []*results.Config) []results.Claim {
	return claim.EvaluateAll(cfgs,
		claim.Rule{ID: ClaimNoEarlyReturn, Statement: "no park-until returns before its deadline (min overshoot >= 0 in every configuration)",
			Needs: "needs a measured configuration",
			Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
				e := c.Summary[MEarly]
				if c.Summary[results.MMin] < 0 && e == 0 {
					e = 1 // a negative minimum is at least one early return
				}
				return []claim.Figure{claim.Fig(c.Key+" early returns", []float64{e}, c).AtMost(0).Exact().
					With(fmt.Sprintf("of %.0f waits, min overshoot %.0f ns", c.Summary[results.MSamples], c.Summary[results.MMin]))}
			}},
		claim.Rule{ID: ClaimSlackDominates, Statement: fmt.Sprintf(
			"the default 50 µs timer slack dominates short deadlines' overshoot and 1 ns slack reduces it "+
				"(kernel-timed waits, deadlines <= %v: the default-slack median minus the small-slack median is at least %.0f%% of the default-slack median, in at least %.0f%% of pairs)",
			slackShortDeadline, slackShare*100, slackPairsNeeded*100),
			Needs: fmt.Sprintf("needs kernel-timed waits with deadlines <= %v under both the default slack and a slack <= %v (--timerslack=default,1ns)", slackShortDeadline, slackSmall),
			Select: func(c *results.Config) bool {
				d, err := time.ParseDuration(c.Params["deadline"])
				return c.Params["kernel_timed"] == "true" && err == nil && d <= slackShortDeadline
			},
			Figures: slackFigure},
	)
}

// slackFigure pairs each (impl, deadline) under the default slack with the
// same under a small one: the share of pairs whose median overshoot the
// small slack cuts by slackShare or more.
func slackFigure(cs []*results.Config) []claim.Figure {
	var of []*results.Config
	var fails []string
	var reduction []float64
	ok, defSlack := 0, -1.0
	for _, d := range cs {
		i := slices.IndexFunc(cs, func(s *results.Config) bool {
			v, err := time.ParseDuration(s.Params["slack"])
			return s.Impl == d.Impl && s.Params["deadline"] == d.Params["deadline"] && err == nil && v <= slackSmall
		})
		if d.Params["slack"] != "default" || i < 0 {
			continue
		}
		of, defSlack = append(of, d, cs[i]), d.Summary[MSlack]
		def, small := d.Summary[results.MMedian], cs[i].Summary[results.MMedian]
		if def > 0 {
			reduction = append(reduction, (def-small)/def)
		}
		if def-small > 0 && def-small >= slackShare*def {
			ok++
		} else {
			fails = append(fails, fmt.Sprintf("%s@%s %.1f->%.1f µs", d.Impl, d.Params["deadline"], def/1e3, small/1e3))
		}
	}
	if len(of) == 0 {
		return nil
	}
	pairs, medRed := len(of)/2, 0.0 // no pair with a default median above zero: no reduction
	if len(reduction) > 0 {
		medRed = stats.Median(reduction)
	}
	note := fmt.Sprintf("%d of %d pairs show it; default slack read back %.0f ns; median reduction of the median overshoot %.0f%%", ok, pairs, defSlack, 100*medRed)
	if len(fails) > 6 {
		fails = append(fails[:6], fmt.Sprintf("and %d more", len(fails)-6))
	}
	note += claim.Listed("; not in", fails)
	f := claim.Fig("pairs where the small slack cuts the overshoot", []float64{float64(ok) / float64(pairs)}, of...).In("%").AtLeast(slackPairsNeeded).With(note)
	if defSlack < float64(10*time.Microsecond) {
		f = f.Skip(fmt.Sprintf("this machine's default timer slack is %.0f ns, not the usual 50 µs (a real-time or tuned process?)", defSlack))
	}
	return []claim.Figure{f}
}
