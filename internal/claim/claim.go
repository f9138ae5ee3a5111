// Package claim is the claim kit: every claim of the study (docs/experiments.md
// lists them) is a Rule, and Evaluate is the one function that decides them
// all. It sits between results (the Claim a file carries) and the
// experiments, which declare their rules in their *claims.go files. A rule
// reads configurations only, so any result file can be judged again.
//
// Evaluate, in this order:
//
//  1. Selection: Rule.Select keeps the configurations the claim reads;
//     Rule.Figures (or Each) makes a Figure of each comparison (a metric, a
//     ratio of two configurations, a count over the run) against its limit.
//  2. The one busy policy (results/load.go says why): a figure any of whose
//     configurations' windows had other processes on over BusyShare of the
//     CPU is left out, named with the share; but never a count load cannot
//     cause (a wrong return value, an early return: Figure.Exact), since
//     load delays events and does not make them wrong.
//  3. The rounds it needs: a figure without rounds is left out; one with
//     fewer than Rule.MinRounds is near its limit. A rule with no figure
//     left is not evaluated, and says why ("cannot judge: no rounds").
//  4. The decision on the median of each figure's rounds (decide): with
//     three rounds no test reaches significance (a Mann-Whitney test of 3
//     against 3 cannot go below p = 0.10), so the median decides and the
//     rounds' spread says how firmly. It holds when every figure does.
//  5. The evidence: "rule: " and Rule.How, every figure with its numbers,
//     those left out with why, Rule.Context.
//  6. The one-line reason (Claim.Why) every renderer prints: the figure
//     furthest beyond its limit ("sync n=64 total/futex-broadcast's 0.45x,
//     limit at least 0.90x and at most 1.10x"), the figure near its limit
//     with its rounds, or what the claim needs.
//
// Near its limit, defined once: a figure's rounds lie on both sides of the
// limit (a round within its noise of it counts on both), or are fewer than
// the rule needs to show their spread; the same code measured again may
// decide the other way. A claim that holds is near when any figure is; one
// that does not, when every failing figure is. The reason says it with its
// numbers: "(rounds 1.00x 1.00x 1.00x 1.69x 1.00x; 1 of 5 on the other side)".
//
// Adding a claim, to herd say: add a Rule to rules() in
// internal/experiments/herd/claims.go, and to herd_test.go a test whose
// synthetic configurations (fakeHerd) must hold and must fail:
//
//	{ID: "herd-first-early", Statement: "the first waiter holds the lock within a tenth of the total",
//		Needs: "needs notify-all at N >= 16", Select: notifyAll,
//		Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
//			r := claim.Share(c, results.MFirstNs, results.MTotalNs)
//			return []claim.Figure{claim.Fig(c.Key+" first/total", r, c).In("x").AtMost(0.1)}
//		}},
//
// No verdict, evidence or reason is written by hand, and internal/report's
// TestEveryClaimRendered renders the new claim in every state (a new
// experiment adds its Claims to that test's judge).
package claim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Rule is one claim, declared.
type Rule struct {
	ID, Statement string
	// Needs is what the claim needs to be evaluated, said when nothing it
	// selects gives a figure: "needs futex and c-futex at one placement".
	Needs string
	// How is how a figure is built when its name does not say it: the
	// evidence opens with it ("per configuration, total / serial time").
	How string
	// MinRounds is the rounds each figure needs to show its spread: one
	// round of a figure that swings between runs shows nothing of the
	// swing (loaded's p99 ratio read 1.74x, then 0.62x, in two default
	// runs of one round each on the AMD EPYC guest).
	MinRounds int
	// Select keeps the configurations the claim reads (nil: all).
	Select func(*results.Config) bool
	// Figures measures the selected configurations (some): a Figure each.
	Figures func(sel []*results.Config) []Figure
	// Each, in place of Figures, measures one selected configuration c
	// (among sel, where its reference is found): its figures, none to
	// leave it out.
	Each func(c *results.Config, sel []*results.Config) []Figure
	// Scope, when set, is appended to the statement in parentheses: what
	// the selection measured ("measured at N = 16, 64").
	Scope func(sel []*results.Config) string
	// Context, when set, is shown in the evidence, not judged.
	Context func(sel []*results.Config) []string
}

// Figure is one comparison of a claim: a value per round against a limit.
type Figure struct {
	// Name says what is compared and where: "lot n=64 total/futex-broadcast's".
	Name string
	// Rounds is the figure in each round, in run order; Of the
	// configurations it is measured on (the busy policy reads their windows).
	Rounds []float64
	Of     []*results.Config
	// Unit formats it: "x" (a ratio), "%" (a share), "ms", or "" (a count
	// or a plain number).
	Unit    string
	noise   float64
	noiseOf string
	note    string
	skip    string
	exact   bool
	bounds  []bound
}

// bound is one limit: its value, its side, the limit decide compares with
// (a strict bound's is just inside v), and how it is said.
type bound struct {
	v, limit float64
	atMost   bool
	word     string
}

// Fig is a figure: its name, its value per round, the configurations it
// is measured on.
func Fig(name string, rounds []float64, of ...*results.Config) Figure {
	return Figure{Name: name, Rounds: rounds, Of: of}
}

// In sets the figure's unit.
func (f Figure) In(unit string) Figure { f.Unit = unit; return f }

// AtMost: the figure holds at or under v.
func (f Figure) AtMost(v float64) Figure { return f.bound(bound{v, v, true, "at most"}) }

// AtLeast: the figure holds at or over v.
func (f Figure) AtLeast(v float64) Figure { return f.bound(bound{v, v, false, "at least"}) }

// Below: the figure holds under v.
func (f Figure) Below(v float64) Figure {
	return f.bound(bound{v, math.Nextafter(v, math.Inf(-1)), true, "below"})
}

// Above: the figure holds over v.
func (f Figure) Above(v float64) Figure {
	return f.bound(bound{v, math.Nextafter(v, math.Inf(1)), false, "above"})
}

func (f Figure) bound(b bound) Figure {
	f.bounds = append(slices.Clip(f.bounds), b)
	return f
}

// Noisy gives each round the run's noise, as a share of its value, by the
// kit's one estimator: the median of apart, how far apart (Apart) pairs of
// measurements that should agree are (two rounds of one configuration; two
// configurations the claim does not tell apart, in one round); none
// without pairs. of says what they are.
func (f Figure) Noisy(apart []float64, of string) Figure {
	if len(apart) > 0 {
		f.noise, f.noiseOf = stats.Median(apart), of
	}
	return f
}

// With adds context to the figure's evidence ("p99 1.27x, not judged").
func (f Figure) With(note string) Figure { f.note = note; return f }

// Exact marks a count that load cannot cause: the busy policy leaves it in.
func (f Figure) Exact() Figure { f.exact = true; return f }

// Skip leaves the figure out of the verdict and says why ("one CPU for
// some wakes"): it is named in the evidence, not judged. Skip("") does not.
func (f Figure) Skip(why string) Figure { f.skip = why; return f }

// Apart is how far apart two measurements that should agree are: the
// larger over the smaller, less 1; ok is false unless both are positive.
func Apart(a, b float64) (float64, bool) { return max(a, b)/min(a, b) - 1, a > 0 && b > 0 }

// RoundsApart is Apart of every two rounds of each configuration (metric).
func RoundsApart(cs []*results.Config, metric string) []float64 {
	var out []float64
	for _, c := range cs {
		for i, x := range c.Rounds {
			for _, y := range c.Rounds[i+1:] {
				if d, ok := Apart(x.Metrics[metric], y.Metrics[metric]); ok {
					out = append(out, d)
				}
			}
		}
	}
	return out
}

// PerRound is f on each round the configurations share (round i of each
// ran in the same pass), given their metrics in the order of cs; on their
// summaries, as one round, when they have no rounds in common. A round f
// rejects (ok false) is left out.
func PerRound(cs []*results.Config, f func(m []map[string]float64) (float64, bool)) []float64 {
	n := 0
	if len(cs) > 0 && !slices.ContainsFunc(cs, func(c *results.Config) bool { return len(c.Rounds) != len(cs[0].Rounds) }) {
		n = len(cs[0].Rounds)
	}
	var out []float64
	m := make([]map[string]float64, len(cs))
	for i := range n {
		for k, c := range cs {
			m[k] = c.Rounds[i].Metrics
		}
		if v, ok := f(m); ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		for k, c := range cs {
			m[k] = c.Summary
		}
		if v, ok := f(m); ok {
			out = []float64{v}
		}
	}
	return out
}

// Values is c's metric in each round that has it, in run order; its
// summary, as one round, when none does.
func Values(c *results.Config, metric string) []float64 {
	return PerRound([]*results.Config{c}, func(m []map[string]float64) (float64, bool) { v, ok := m[0][metric]; return v, ok })
}

// Ratios is a's metric over b's, round by round (round i of each ran in
// the same pass, or back to back); the summaries' ratio when they have no
// rounds in common.
func Ratios(a, b *results.Config, metric string) []float64 {
	return PerRound([]*results.Config{a, b}, func(m []map[string]float64) (float64, bool) {
		x, ok := m[0][metric]
		return x / m[1][metric], ok && m[1][metric] > 0
	})
}

// Share is c's metric over its ref metric (a share of waits, a time per
// critical section), round by round.
func Share(c *results.Config, metric, ref string) []float64 {
	return PerRound([]*results.Config{c}, func(m []map[string]float64) (float64, bool) { return m[0][metric] / m[0][ref], m[0][ref] > 0 })
}

// Ratio is the figure of a's metric over b's, round by round (Ratios).
func Ratio(name string, a, b *results.Config, metric string) Figure {
	return Fig(name, Ratios(a, b, metric), a, b).In("x")
}

// Find is the first of cs that is, nil when none is.
func Find(cs []*results.Config, is func(*results.Config) bool) *results.Config {
	if i := slices.IndexFunc(cs, is); i >= 0 {
		return cs[i]
	}
	return nil
}

// Listed is "what: a, b", "" for no items (a note that may say nothing).
func Listed(what string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	return what + ": " + strings.Join(items, ", ")
}

// Notes are the notes that say something (not ""), for Rule.Context.
func Notes(ns ...string) []string {
	return slices.DeleteFunc(ns, func(n string) bool { return n == "" })
}

// Evaluate decides r on the configurations cs (the package doc's steps).
func Evaluate(r Rule, cs []*results.Config) results.Claim {
	cl := results.Claim{ID: r.ID, Statement: r.Statement, Verdict: results.NotEvaluated}
	sel := slices.DeleteFunc(slices.Clone(cs), func(c *results.Config) bool { return r.Select != nil && !r.Select(c) })
	var figs []Figure
	var context []string
	for i := 0; r.Each != nil && i < len(sel); i++ {
		figs = append(figs, r.Each(sel[i], sel)...)
	}
	if len(sel) > 0 {
		if r.Figures != nil {
			figs = r.Figures(sel)
		}
		if r.Scope != nil && r.Scope(sel) != "" {
			cl.Statement += " (" + r.Scope(sel) + ")"
		}
		if r.Context != nil {
			context = r.Context(sel)
		}
	}
	ev := []string{"rule: " + strings.TrimPrefix(r.How+"; the median of each figure's rounds against its limit", "; ")}
	var ds []decided
	var left []string
	busy, bare, busiest := 0, 0, 0.0
	for _, f := range figs {
		switch b := results.Busy(f.Of...); {
		case f.skip != "":
			left = append(left, f.Name+" ("+f.skip+")")
		case b != nil && !f.exact:
			busy, busiest = busy+1, max(busiest, b.Fraction)
			left = append(left, f.Name+" ("+results.BusyText(b)+")")
		case len(f.Rounds) == 0:
			bare++
			left = append(left, f.Name+" (no rounds)")
		default:
			ds = append(ds, f.decide(r.MinRounds))
		}
	}
	ev = append(ev, figureTexts(ds)...)
	if len(left) > 0 {
		ev = append(ev, "not judged: "+strings.Join(left, ", "))
	}
	if len(ds) == 0 {
		switch n := len(left); {
		case n > 0 && busy == n:
			cl.Why = fmt.Sprintf("cannot judge: every figure ran with other processes on over %.0f%% of the CPU (up to %.0f%%, %d left out)", 100*results.BusyShare, 100*busiest, n)
		case n > 0 && bare == n:
			cl.Why = "cannot judge: no rounds"
		case n > 0:
			cl.Why = r.Needs + "; not judged: " + left[0] + more(n-1, "not judged")
		default:
			cl.Why = r.Needs
		}
		cl.Evidence = strings.Join(append(append(ev, cl.Why), context...), "; ")
		return cl
	}
	cl.Evidence = strings.Join(append(ev, context...), "; ")
	failing := slices.DeleteFunc(slices.Clone(ds), func(d decided) bool { return d.holds })
	near := slices.DeleteFunc(slices.Clone(ds), func(d decided) bool { return !d.near || len(failing) > 0 && d.holds })
	cl.Verdict = results.Holds
	if len(failing) > 0 {
		cl.Verdict = results.DoesNotHold
		if len(near) < len(failing) {
			near = nil // one clear failure is a clear failure
		}
	}
	cl.Near = len(near) > 0
	cl.Margin = strings.Join(figureTexts(near), "; ") // every one, as each is near
	switch {
	case len(failing) > 0:
		// The reason is the worst failure, a clear one when the claim is.
		pick := slices.DeleteFunc(slices.Clone(failing), func(d decided) bool { return d.near && !cl.Near })
		cl.Why = slices.MaxFunc(pick, func(a, b decided) int { return cmp.Compare(a.miss(), b.miss()) }).text() + more(len(failing)-1, "beyond its limit")
	case cl.Near:
		cl.Why = near[0].text() + more(len(near)-1, "near its limit")
	}
	return cl
}

// EvaluateAll is Evaluate of each rule, in order.
func EvaluateAll(cs []*results.Config, rules ...Rule) (out []results.Claim) {
	for _, r := range rules {
		out = append(out, Evaluate(r, cs))
	}
	return out
}

// more is " (and 2 more figures near their limits)", "" for none.
func more(n int, what string) string {
	switch {
	case n == 1:
		return " (and 1 more figure " + what + ")"
	case n > 1:
		return fmt.Sprintf(" (and %d more figures %s)", n, strings.ReplaceAll(what, "its limit", "their limits"))
	}
	return ""
}

// figureTexts is every figure with its numbers, in order; beyond eight,
// those clearly within their limits are counted, the three closest to a
// limit named.
func figureTexts(ds []decided) (out []string) {
	var clear []decided
	for _, d := range ds {
		if len(ds) > 8 && d.holds && !d.near {
			clear = append(clear, d)
		} else {
			out = append(out, d.text())
		}
	}
	if len(clear) == 0 {
		return out
	}
	slices.SortStableFunc(clear, func(a, b decided) int { return cmp.Compare(a.miss(), b.miss()) })
	closest := figureTexts(clear[:min(3, len(clear))]) // three: each named
	return append(out, fmt.Sprintf("%d more within their limits, the closest: %s", len(clear), strings.Join(closest, "; ")))
}

// decided is a figure with its verdict: by is the bound that decided it
// (the first failing one, else the first near one, else the nearest), and
// of its rounds, other lie on its other side, within within their noise
// of it; few is the rounds it needed when it had fewer.
type decided struct {
	Figure
	med                float64
	holds, near        bool
	by                 bound
	other, within, few int
}

// ok is whether v lies on b's holding side.
func (b bound) ok(v float64) bool { return b.atMost && v <= b.limit || !b.atMost && v >= b.limit }

// sides counts f's rounds on the other side of b from the verdict holds
// (other), and those on its side but within their noise of the limit
// (within): either makes the verdict near its limit.
func (f Figure) sides(b bound, holds bool) (other, within int) {
	for _, v := range f.Rounds {
		n := 0.0 // v's half-width, none when not positive
		if w := f.noise * math.Abs(v); w > 0 {
			n = w
		}
		switch {
		case b.ok(v) != holds:
			other++
		case b.ok(v-n) != holds || b.ok(v+n) != holds:
			within++
		}
	}
	return other, within
}

// decide is f's verdict on the median of its rounds (f has some) against
// each bound, near its limit as the package doc defines it.
func (f Figure) decide(minRounds int) decided {
	d := decided{Figure: f, med: stats.Median(f.Rounds), holds: true}
	for _, b := range f.bounds {
		ok := b.ok(d.med)
		other, within := f.sides(b, ok)
		near := other+within > 0 || len(f.Rounds) < minRounds
		switch {
		case !ok && d.holds:
			d.holds, d.near, d.by = false, near, b
		case ok && d.holds && near && !d.near:
			d.near, d.by = true, b
		}
	}
	if d.holds && !d.near && len(f.bounds) > 0 {
		d.by = slices.MinFunc(f.bounds, func(a, b bound) int { return cmp.Compare(math.Abs(d.med-a.v), math.Abs(d.med-b.v)) })
	}
	d.other, d.within = f.sides(d.by, d.holds)
	if len(f.Rounds) < minRounds {
		d.few = minRounds
	}
	return d
}

// miss is how far the median lies from the deciding bound, as a share of
// the bound (of 1 for a bound of 0): the worst failing figure is the
// claim's reason, the closest holding ones are named among many.
func (d decided) miss() float64 { return math.Abs(d.med-d.by.v) / max(math.Abs(d.by.v), 1e-9) }

// text is the figure with its numbers, "name 1.31x, limit at most 1.10x",
// its rounds when it has several, and when it is near its limit how many
// rounds lie on the other side (or within their noise of it, or how many
// it needs); then its note.
func (d decided) text() string {
	var lim []string
	for _, b := range d.bounds {
		lim = append(lim, b.word+" "+d.fmt(b.v))
	}
	s := d.Name + " " + d.fmt(d.med) + ", limit " + strings.Join(lim, " and ")
	if len(d.Rounds) > 1 || d.near {
		var rs []string
		for _, v := range d.Rounds[:min(len(d.Rounds), 10)] {
			rs = append(rs, d.fmt(v))
		}
		if len(d.Rounds) > 10 {
			rs = append(rs, "…")
		}
		s += " (rounds " + strings.Join(rs, " ")
		if d.noise > 0 {
			s += fmt.Sprintf(", each ±%.0f%%, %s", 100*d.noise, d.noiseOf)
		}
		if d.near {
			var why []string
			if d.other > 0 {
				why = append(why, fmt.Sprintf("%d of %d on the other side", d.other, len(d.Rounds)))
			}
			if d.within > 0 {
				why = append(why, fmt.Sprintf("%d of %d within their noise of it", d.within, len(d.Rounds)))
			}
			if d.few > 0 {
				why = append(why, fmt.Sprintf("%d of the %d rounds it needs", len(d.Rounds), d.few))
			}
			s += "; " + strings.Join(why, ", ")
		}
		s += ")"
	}
	if d.note != "" {
		s += " (" + d.note + ")"
	}
	return s
}

// Us is a time in evidence, "12.3 µs" (ns in).
func Us(ns float64) string { return strconv.FormatFloat(ns/1e3, 'f', 1, 64) + " µs" }

// fmt formats v in the figure's unit.
func (f Figure) fmt(v float64) string {
	switch f.Unit {
	case "x":
		return strconv.FormatFloat(v, 'f', 2, 64) + "x"
	case "%":
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	case "ms":
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " ms"
	case "":
		if v == math.Trunc(v) && math.Abs(v) < 1e12 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}
