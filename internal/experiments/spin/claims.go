package spin

import (
	"fmt"
	"math"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Claim IDs of the spin experiment.
const (
	ClaimPastCompetitive = "spin-past-competitive-buys-nothing"
	ClaimCompetitive2x   = "spin-competitive-within-2x"
	ClaimOversubscribed  = "spin-oversubscribed-park-wins"
)

// The claims' limits. Each claim is a set of results.Limit (a figure per
// round against a limit) decided by Claim.Judge: the median of rounds
// decides, rounds on both sides of the limit (or fewer than claimRounds)
// mark it near its limit.
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
// it reads only Params, Impl and the rounds' figures).
func Claims(cfgs []*results.Config) []results.Claim {
	ps := byPlacement(cfgs)
	return []results.Claim{claimPast(find(ps, CrossCore)), claimWithin2x(find(ps, CrossCore)), claimOversubscribed(find(ps, Oversubscribed))}
}

// limit is a claim's figure: a ratio of two configurations round by round.
func limit(figure string, a, b *results.Config, metric string, lim float64, atMost bool) results.Limit {
	return results.Limit{Figure: figure, Rounds: results.RoundRatios(a, b, metric), Limit: lim, AtMost: atMost, Unit: "x", MinRounds: claimRounds}
}

// judge decides cl on limits and writes its evidence and, when it does not
// hold, its one-line reason: the failing figures with their medians.
func judge(cl *results.Claim, limits []results.Limit, rule, missing string) {
	if len(limits) == 0 {
		cl.Verdict, cl.Evidence, cl.Why = results.NotEvaluated, missing, missing
		return
	}
	cl.Judge(limits...)
	var failing []string
	for _, l := range limits {
		if ok, _ := l.Decide(); !ok {
			failing = append(failing, fmt.Sprintf("%s %.2fx", l.Figure, stats.Median(l.Rounds)))
		}
	}
	cl.Evidence = fmt.Sprintf("%s; %d figures, %d outside the limit", rule, len(limits), len(failing))
	if len(failing) > 0 {
		if len(failing) > 4 {
			failing = append(failing[:4], fmt.Sprintf("and %d more", len(failing)-4))
		}
		cl.Why = "outside: " + strings.Join(failing, "; ")
		cl.Evidence += ": " + strings.Join(failing, "; ")
	}
}

// claimPast: across CPUs, at every gap longer than the competitive budget
// C, a fixed budget between C and the gap spins and then parks anyway: it
// buys no latency (its median latency at least noGain x the competitive
// rule's, round by round) and costs CPU (its CPU per wait at least the
// rule's).
func claimPast(p *placed) results.Claim {
	cl := results.Claim{ID: ClaimPastCompetitive, Statement: fmt.Sprintf(
		"spinning past the competitive budget buys no latency and costs CPU: across CPUs, at each gap longer than the competitive budget C "+
			"(the park + wake cost), every fixed budget between C and the gap has a median latency at least %.1fx the competitive rule's and burns at least its CPU per wait", noGain)}
	missing := "needs the cross-core placement with the competitive row and a fixed budget between the competitive budget and a longer gap"
	if p == nil || p.competitive() <= 0 {
		judge(&cl, nil, "", missing)
		return cl
	}
	c := p.competitive()
	var limits []results.Limit
	for _, g := range p.gaps {
		comp := p.named[g][RowCompetitive]
		if comp == nil || float64(g) <= c {
			continue
		}
		for _, f := range p.fixed[g] {
			if b := float64(f.budget); b <= c || f.budget >= g {
				continue
			}
			name := fmt.Sprintf("gap %v budget %s", g, BudgetLabel(f.budget))
			limits = append(limits,
				limit(name+" latency/competitive", f.c, comp, results.MMedian, noGain, false),
				limit(name+" cpu/competitive", f.c, comp, MCPU, 1, false))
		}
	}
	judge(&cl, limits, fmt.Sprintf("rule: C = %s; per gap and budget, round by round, the budget's median latency and CPU per wait over the competitive rule's", us(c)), missing)
	return cl
}

// claimWithin2x: across CPUs, at every gap, the competitive rule's total
// cost (median latency + median CPU per wait) is at most karlin x the best
// fixed budget's in that round (the best choice in hindsight).
func claimWithin2x(p *placed) results.Claim {
	cl := results.Claim{ID: ClaimCompetitive2x, Statement: fmt.Sprintf(
		"the competitive rule (spin for the park + wake cost, then park) is within %.0fx of the best fixed budget's total cost (median latency + CPU per wait) "+
			"at every gap, across CPUs (Karlin, Manasse, McGeoch, Owicki 1991)", karlin)}
	missing := "needs the cross-core placement with the competitive row and fixed budgets"
	if p == nil {
		judge(&cl, nil, "", missing)
		return cl
	}
	var limits []results.Limit
	var best []string
	for _, g := range p.gaps {
		comp := p.named[g][RowCompetitive]
		if comp == nil || len(p.fixed[g]) == 0 {
			continue
		}
		rounds, who := bestRatios(comp, p.fixed[g])
		limits = append(limits, results.Limit{Figure: fmt.Sprintf("gap %v competitive/best", g), Rounds: rounds, Limit: karlin, AtMost: true, Unit: "x", MinRounds: claimRounds})
		best = append(best, fmt.Sprintf("gap %v: best %s", g, who))
	}
	judge(&cl, limits, "rule: per gap, round by round, the competitive rule's cost over the cheapest fixed budget's in that round ("+strings.Join(best, ", ")+")", missing)
	return cl
}

// bestRatios is, round by round, comp's cost over the cheapest fixed row's
// in that round, and the budget cheapest most often.
func bestRatios(comp *results.Config, fixed []budgeted) ([]float64, string) {
	cc := results.RoundValues(comp, MCost)
	wins := map[string]int{}
	var out []float64
	for i := range cc {
		lo, who := math.Inf(1), ""
		for _, f := range fixed {
			v := results.RoundValues(f.c, MCost)
			if i < len(v) && v[i] < lo {
				lo, who = v[i], BudgetLabel(f.budget)
			}
		}
		if lo > 0 && !math.IsInf(lo, 1) {
			out = append(out, cc[i]/lo)
			wins[who]++
		}
	}
	top, n := "", 0
	for k, v := range wins {
		if v > n || v == n && k < top {
			top, n = k, v
		}
	}
	return out, top
}

// claimOversubscribed: on one CPU (the waiter and the waker share it),
// spinning loses to parking at once: at every gap longer than the
// placement's own park + wake cost C (at a shorter one the holder is done
// before the waiter can run, whatever it does), each fixed budget longer
// than C, unbounded included, has a cost (how late the waiter resumed past
// its due time, plus its CPU per wait) at least park-at-once's, round by
// round.
func claimOversubscribed(p *placed) results.Claim {
	cl := results.Claim{ID: ClaimOversubscribed, Statement: "oversubscribed (the waiter and the waker on one CPU), spinning loses to parking at once: at every gap longer than " +
		"that placement's park + wake cost C, each fixed budget longer than C (unbounded included) resumes the waiter later past its due time, CPU per wait added, than a budget of 0"}
	missing := "needs the oversubscribed placement with a budget of 0, a longer fixed budget, and a gap longer than its park + wake cost"
	if p == nil {
		judge(&cl, nil, "", missing)
		return cl
	}
	c := p.competitive()
	var limits []results.Limit
	for _, g := range p.gaps {
		zero := p.fixedAt(g, 0)
		if zero == nil || float64(g) <= c {
			continue
		}
		for _, f := range p.fixed[g] {
			if f.budget == 0 || float64(f.budget) <= c {
				continue
			}
			limits = append(limits, limit(fmt.Sprintf("gap %v budget %s/0", g, BudgetLabel(f.budget)), f.c, zero, MLateCost, 1, false))
		}
	}
	judge(&cl, limits, fmt.Sprintf("rule: C = %s; per gap and budget above C, round by round, late + CPU per wait over a budget of 0's", us(c)), missing)
	return cl
}
