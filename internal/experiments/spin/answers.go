package spin

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// Knee tolerance: a budget's latency counts as no better than a smaller
// one's when it is within kneeShare of it, or kneeFloor ns.
const (
	kneeShare = 0.10
	kneeFloor = 200.0
)

// Knee is the fixed budget past which the median latency at one gap stops
// improving: the smallest budget that no larger budget beats by more than
// the tolerance (kneeShare, kneeFloor). ok is false without fixed rows.
func Knee(rows []budgeted) (b time.Duration, lat float64, ok bool) {
	for i, r := range rows {
		l := r.c.Summary[results.MMedian]
		tol := math.Max(kneeShare*l, kneeFloor)
		beaten := false
		for _, s := range rows[i+1:] {
			if s.c.Summary[results.MMedian] < l-tol {
				beaten = true
				break
			}
		}
		if !beaten {
			return r.budget, l, true
		}
	}
	return 0, 0, false
}

// Folklore is one library's spin budget as measured here (its spin phase
// timed alone), beside the competitive budget.
type Folklore struct {
	Name   string
	Budget float64 // ns
}

// folklore reads the library rows' measured budgets of a placement.
func (p *placed) folklore() []Folklore {
	var out []Folklore
	if len(p.gaps) == 0 {
		return nil
	}
	for _, name := range []string{RowLot, RowGo, RowGlibc, RowCrossbeam} {
		if c := p.named[p.gaps[0]][name]; c != nil && c.Summary[MBudget] > 0 {
			out = append(out, Folklore{name, c.Summary[MBudget]})
		}
	}
	return out
}

// Closest is the library whose budget is nearest the competitive budget c
// on a log scale (a factor of 2 either way is as far), ok false when none.
func Closest(fs []Folklore, c float64) (Folklore, bool) {
	best, dist := Folklore{}, math.Inf(1)
	for _, f := range fs {
		if f.Budget <= 0 || c <= 0 {
			continue
		}
		if d := math.Abs(math.Log(f.Budget / c)); d < dist {
			best, dist = f, d
		}
	}
	return best, !math.IsInf(dist, 1)
}

// Answers are the notes that answer the experiment's question, per
// placement: the competitive budget (this run's park + wake cost), the
// libraries' budgets beside it and which comes closest, and per gap the
// budget past which the latency stops improving, with what parking at once
// and the competitive rule got there.
func Answers(cfgs []*results.Config) []string {
	var notes []string
	for _, p := range byPlacement(cfgs) {
		c := p.competitive()
		if c > 0 {
			lat, cpu, which := p.ping.Summary[MSleptLat], p.ping.Summary[MSleptCPU], "the waits that slept"
			if _, ok := p.ping.Summary[MSleptLat]; !ok {
				lat, cpu, which = p.ping.Summary[results.MMedian], p.ping.Summary[MCPU], "every wait: too few slept"
			}
			s := fmt.Sprintf("%s: competitive budget %s (the park + wake ping-pong, %s: latency %s + the parked side's CPU %s, medians over rounds)",
				p.placement, us(c), which, us(lat), us(cpu))
			if fs := p.folklore(); len(fs) > 0 {
				var parts []string
				for _, f := range fs {
					parts = append(parts, fmt.Sprintf("%s %s (%.2fx)", f.Name, us(f.Budget), f.Budget/c))
				}
				s += "; the libraries' budgets here: " + strings.Join(parts, ", ")
				if best, ok := Closest(fs, c); ok {
					s += "; closest: " + best.Name
				}
			}
			notes = append(notes, s)
		}
		var gaps []string
		for _, g := range p.gaps {
			b, lat, ok := Knee(p.fixed[g])
			if !ok {
				continue
			}
			s := fmt.Sprintf("gap %v: stops improving at budget %s (%s", g, BudgetLabel(b), us(lat))
			if z := p.fixedAt(g, 0); z != nil && b != 0 {
				s += fmt.Sprintf("; parking at once %s", us(z.Summary[results.MMedian]))
			}
			s += ")"
			if cr := p.named[g][RowCompetitive]; cr != nil {
				s += fmt.Sprintf(", competitive %s at %s CPU", us(cr.Summary[results.MMedian]), us(cr.Summary[MCPU]))
			}
			gaps = append(gaps, s)
		}
		if len(gaps) > 0 {
			notes = append(notes, p.placement+", the median latency per gap: "+strings.Join(gaps, "; "))
		}
	}
	return notes
}

// us formats ns as µs.
func us(ns float64) string { return fmt.Sprintf("%.2f µs", ns/1e3) }
