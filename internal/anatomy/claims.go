package anatomy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Claims the anatomy decides (--anatomy only).
const (
	ClaimAnatomyIdle = "E12-anatomy-idle-exit"
	ClaimAnatomyGap  = "E12-anatomy-gap"
)

// minIdleWakes: a configuration whose CPU was idle at fewer of its traced
// wakes says nothing about leaving idle.
const minIdleWakes = 20

// Claims evaluates the anatomy's claims on lat (a latency run with
// --anatomy), from the figures of its cross-core configurations.
func Claims(lat *results.Experiment) []results.Claim {
	return claim.EvaluateAll(lat.Configs, anatomyIdleRule, anatomyGapRule)
}

// crossWithAnatomy selects the sleeping cross-core configurations the
// anatomy traced.
func crossWithAnatomy(c *results.Config) bool {
	_, ok := c.Summary[MSumMedian]
	return c.Placement == driver.CrossCore && c.Params["sleeps"] == "true" && ok
}

var anatomyIdleRule = claim.Rule{ID: ClaimAnatomyIdle, Statement: "a cross-core sleeping wake's largest part is its CPU leaving idle (idle_exit: the IPI and, in a VM guest, the host running a halted vCPU again), not the mechanism",
	Needs:  fmt.Sprintf("needs a cross-core configuration at gap 0 whose target CPU was idle at %d or more traced wakes (--anatomy)", minIdleWakes),
	Select: func(c *results.Config) bool { return crossWithAnatomy(c) && c.Params["gap"] == "0s" },
	Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
		rounds := claim.PerRound([]*results.Config{c}, func(m []map[string]float64) (float64, bool) {
			other := 0.0
			for _, k := range Components {
				if k != IdleExit {
					other = max(other, m[0][MedianKey(k)])
				}
			}
			return m[0][MedianKey(IdleExit)] / other, other > 0
		})
		s := c.Summary
		f := claim.Fig(c.Key+" idle_exit/largest other part", rounds, c).In("x").AtLeast(1).
			With(fmt.Sprintf("idle_exit %s of %s summed, median share %.0f%%; %d idle, %d busy wakes",
				claim.Us(s[MedianKey(IdleExit)]), claim.Us(s[MSumMedian]), 100*s[MIdleShare], int(s[MIdleWakes]), int(s[MBusyWakes])))
		if s[MIdleWakes] < minIdleWakes {
			f = f.Skip(fmt.Sprintf("its target CPU was idle at %d traced wakes, busy at %d: a loaded machine", int(s[MIdleWakes]), int(s[MBusyWakes])))
		}
		return []claim.Figure{f}
	}}

var anatomyGapRule = claim.Rule{ID: ClaimAnatomyGap, Statement: "under --gap, idle_exit's share of a cross-core wake grows with the gap (a CPU idle longer sits in a deeper state)",
	Needs: "needs --gap with two or more values and the target CPU idle at the wakes (e.g. --gap=0,50us,1ms --placement=cross-core)",
	Select: func(c *results.Config) bool {
		g, err := time.ParseDuration(c.Params["gap"])
		return crossWithAnatomy(c) && err == nil && (g == 0 || c.Summary[MIdleWakes] >= minIdleWakes)
	},
	Each: func(c *results.Config, cs []*results.Config) []claim.Figure {
		gap := func(c *results.Config) time.Duration { g, _ := time.ParseDuration(c.Params["gap"]); return g }
		ps := slices.DeleteFunc(slices.Clone(cs), func(x *results.Config) bool { return x.Impl != c.Impl })
		if len(ps) < 2 || ps[0] != c {
			return nil // one figure per implementation, at its first configuration
		}
		slices.SortStableFunc(ps, func(a, b *results.Config) int { return int(gap(a) - gap(b)) })
		lo, hi := ps[0], ps[len(ps)-1]
		var parts []string
		for _, p := range ps {
			parts = append(parts, fmt.Sprintf("%v %.0f%%", gap(p), 100*p.Summary[MIdleShare]))
		}
		name := fmt.Sprintf("%s idle_exit share at gap %v less at %v", c.Impl, gap(hi), gap(lo))
		diff := claim.PerRound([]*results.Config{hi, lo}, func(m []map[string]float64) (float64, bool) {
			return m[0][MIdleShare] - m[1][MIdleShare], true
		})
		return []claim.Figure{claim.Fig(name, diff, ps...).In("%").Above(0).With(strings.Join(parts, ", "))}
	}}
