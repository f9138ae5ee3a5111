package spin

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs of the spin experiment.
const (
	ClaimPastCompetitive = "spin-past-competitive-buys-nothing"
	ClaimCompetitive2x   = "spin-competitive-within-2x"
	ClaimOversubscribed  = "spin-oversubscribed-park-wins"
)

// The claims' limits.
const (
	// noGain: a budget buys no latency when its median latency is at
	// least this share of the competitive rule's.
	noGain = 0.9
	// karlin: the competitive rule's cost is within this factor of the best
	// fixed budget's (Karlin, Manasse, McGeoch, Owicki 1991).
	karlin = 2.0
	// claimRounds: the rounds a figure needs before its spread shows.
	claimRounds = 3
)

// Claims evaluates the experiment's claims from its configurations (pure:
// it reads only Params, Impl and the rounds' figures). Each rule reads one
// placement, found among all the configurations, each figure claimRounds.
func Claims(cfgs []*results.Config) []results.Claim {
	ps := byPlacement(cfgs)
	at := func(pl string, f func(*placed) []claim.Figure, r claim.Rule) claim.Rule {
		r.MinRounds, r.Figures = claimRounds, func([]*results.Config) []claim.Figure {
			if p := find(ps, pl); p != nil {
				return f(p)
			}
			return nil
		}
		return r
	}
	return claim.EvaluateAll(cfgs,
		at(CrossCore, (*placed).pastCompetitive, claim.Rule{ID: ClaimPastCompetitive, Statement: fmt.Sprintf(
			"spinning past the competitive budget buys no latency and costs CPU: across CPUs, at each gap longer than the competitive budget C "+
				"(the park + wake cost), every fixed budget between C and the gap has a median latency at least %.1fx the competitive rule's and burns at least its CPU per wait", noGain),
			Needs: "needs the cross-core placement with the competitive row and a fixed budget between the competitive budget and a longer gap",
			How:   "per gap and budget, round by round, the budget's median latency and CPU per wait over the competitive rule's"}),
		at(CrossCore, (*placed).competitive2x, claim.Rule{ID: ClaimCompetitive2x, Statement: fmt.Sprintf(
			"the competitive rule (spin for the park + wake cost, then park) is within %.0fx of the best fixed budget's total cost (median latency + CPU per wait) "+
				"at every gap, across CPUs (Karlin, Manasse, McGeoch, Owicki 1991)", karlin),
			Needs: "needs the cross-core placement with the competitive row and fixed budgets",
			How:   "per gap, round by round, the competitive rule's cost over the cheapest fixed budget's in that round"}),
		at(Oversubscribed, (*placed).oversubscribed, claim.Rule{ID: ClaimOversubscribed, Statement: "oversubscribed (the waiter and the waker on one CPU), spinning loses to parking at once: at every gap longer than " +
			"that placement's park + wake cost C, each fixed budget longer than C (unbounded included) resumes the waiter later past its due time, CPU per wait added, than a budget of 0",
			Needs: "needs the oversubscribed placement with a budget of 0, a longer fixed budget, and a gap longer than its park + wake cost",
			How:   "per gap and budget above C, round by round, late + CPU per wait over a budget of 0's"}),
	)
}

// pastCompetitive: a fixed budget between C and the gap spins, then parks
// anyway.
func (p *placed) pastCompetitive() (out []claim.Figure) {
	c := p.competitive()
	for _, g := range p.gaps {
		comp := p.named[g][RowCompetitive]
		if comp == nil || c <= 0 || float64(g) <= c {
			continue
		}
		for _, f := range p.fixed[g] {
			if b := float64(f.budget); b > c && f.budget < g {
				name := fmt.Sprintf("gap %v budget %s", g, BudgetLabel(f.budget))
				out = append(out, claim.Ratio(name+" latency/competitive", f.c, comp, results.MMedian).AtLeast(noGain).With("C = "+us(c)),
					claim.Ratio(name+" cpu/competitive", f.c, comp, MCPU).AtLeast(1))
			}
		}
	}
	return out
}

// competitive2x: the best fixed budget is the best choice in hindsight,
// round by round.
func (p *placed) competitive2x() (out []claim.Figure) {
	for _, g := range p.gaps {
		if comp := p.named[g][RowCompetitive]; comp != nil && len(p.fixed[g]) > 0 {
			rounds, who := bestRatios(comp, p.fixed[g])
			out = append(out, claim.Fig(fmt.Sprintf("gap %v competitive/best", g), rounds, comp).In("x").AtMost(karlin).With("best "+who))
		}
	}
	return out
}

// oversubscribed: only gaps longer than the placement's own park + wake
// cost C; at a shorter one the holder is done before the waiter can run,
// whatever it does.
func (p *placed) oversubscribed() (out []claim.Figure) {
	c := p.competitive()
	for _, g := range p.gaps {
		zero := p.fixedAt(g, 0)
		if zero == nil || float64(g) <= c {
			continue
		}
		for _, f := range p.fixed[g] {
			if f.budget != 0 && float64(f.budget) > c {
				out = append(out, claim.Ratio(fmt.Sprintf("gap %v budget %s/0", g, BudgetLabel(f.budget)), f.c, zero, MLateCost).AtLeast(1).With("C = "+us(c)))
			}
		}
	}
	return out
}

// bestRatios is, round by round, comp's cost over the cheapest fixed row's
// in that round, and the budget cheapest most often.
func bestRatios(comp *results.Config, fixed []budgeted) ([]float64, string) {
	wins := map[string]int{}
	var out []float64
	for i, c := range claim.Values(comp, MCost) {
		lo, who := math.Inf(1), ""
		for _, f := range fixed {
			if v := claim.Values(f.c, MCost); i < len(v) && v[i] < lo {
				lo, who = v[i], BudgetLabel(f.budget)
			}
		}
		if lo > 0 && !math.IsInf(lo, 1) {
			out = append(out, c/lo)
			wins[who]++
		}
	}
	if len(wins) == 0 {
		return nil, ""
	}
	// The budget cheapest most often; of a tie, the first by name.
	return out, slices.MaxFunc(slices.Sorted(maps.Keys(wins)), func(a, b string) int { return wins[a] - wins[b] })
}
