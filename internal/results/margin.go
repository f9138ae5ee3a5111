package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/stats"
)

// A claim's verdict is decided on the median of a figure against a limit;
// the rounds it has say how close that decision is. With three rounds no
// test reaches significance (a Mann-Whitney test of 3 against 3 cannot go
// below p = 0.10), so the spread decides: when the rounds' own figures lie
// on both sides of the limit, the same code measured again may decide the
// other way, and the claim says so (Near) instead of flipping silently.
// Two default runs minutes apart on the 2-vCPU AMD EPYC guest flipped five
// claims whose rounds did exactly that (issue 35).

// Limit is one comparison of a claim: a figure (its value per round, in
// run order) against a limit, holding when it is at most the limit
// (AtMost) or at least it.
type Limit struct {
	// Figure names what is compared: "lot/futex n=16", "sync max wait".
	Figure string
	Rounds []float64
	Limit  float64
	AtMost bool
	// Unit formats the figures: "x" (a ratio), "ms", "µs", or "" (%.3g).
	Unit string
	// Noise, when set, is each round's measured noise: a half-width in the
	// figure's units around Rounds[i] (a missing or zero entry: none). A
	// round within its noise of the limit counts on both sides of it. It is
	// for figures whose rounds agree with each other more than runs do: the
	// rounds of one run share its conditions, and a control measured in the
	// same rounds (two configurations that should not differ) shows how far
	// those conditions alone move the figure. NoiseOf says what it is.
	Noise   []float64
	NoiseOf string
	// MinRounds, when set, is the rounds the figure needs before its
	// spread shows: with fewer (but some), the verdict is near its limit
	// whatever its value. One round of a figure that swings between runs
	// shows nothing of the swing (loaded's p99 ratio read 1.74x, then
	// 0.62x, in two default runs of one round each on the AMD EPYC
	// guest). Describe names the rounds it had and needed.
	MinRounds int
}

// Decide is l's verdict on the median of its rounds, and whether the
// rounds straddle the limit (some on each side of it, a round's noise
// counted on both sides of its value), or are fewer than MinRounds:
// near its limit. With no rounds it holds vacuously and is not near.
func (l Limit) Decide() (holds, near bool) {
	if len(l.Rounds) == 0 {
		return true, false
	}
	med := stats.Median(l.Rounds)
	holds = l.ok(med)
	for i, v := range l.Rounds {
		n := l.noise(i)
		if l.ok(v) != holds || l.ok(v-n) != holds || l.ok(v+n) != holds {
			near = true
		}
	}
	return holds, near || l.tooFew()
}

// tooFew: l has rounds, fewer than it needs to show their spread.
func (l Limit) tooFew() bool { return len(l.Rounds) > 0 && len(l.Rounds) < l.MinRounds }

// noise is round i's half-width, 0 without one.
func (l Limit) noise(i int) float64 {
	if i < len(l.Noise) && l.Noise[i] > 0 {
		return l.Noise[i]
	}
	return 0
}

func (l Limit) ok(v float64) bool {
	if l.AtMost {
		return v <= l.Limit
	}
	return v >= l.Limit
}

// Describe is "lot/futex n=16: rounds 1.81x, 2.12x, 1.95x against at
// least 2.00x": the figure, every round (with its noise, "0.87x ±0.26x",
// and what the noise is) and the limit, for a claim's margin.
func (l Limit) Describe() string {
	vals := make([]string, len(l.Rounds))
	for i, v := range l.Rounds {
		vals[i] = l.fmt(v)
		if n := l.noise(i); n > 0 {
			vals[i] += " ±" + l.fmt(n)
		}
	}
	side := "at least"
	if l.AtMost {
		side = "at most"
	}
	s := fmt.Sprintf("%s: rounds %s against %s %s", l.Figure, strings.Join(vals, ", "), side, l.fmt(l.Limit))
	if l.NoiseOf != "" && slices.ContainsFunc(l.Noise, func(n float64) bool { return n > 0 }) {
		s += " (± " + l.NoiseOf + ")"
	}
	if l.tooFew() {
		s += fmt.Sprintf(" (%d of the %d rounds it needs to show its spread)", len(l.Rounds), l.MinRounds)
	}
	return s
}

func (l Limit) fmt(v float64) string {
	switch l.Unit {
	case "x":
		return strconv.FormatFloat(v, 'f', 2, 64) + "x"
	case "ms":
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + " ms"
	case "µs":
		return strconv.FormatFloat(v/1e3, 'f', 2, 64) + " µs"
	case "%":
		return strconv.FormatFloat(100*v, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// Judge decides a claim's verdict on every limit (it holds when every one
// holds) and marks it near its limit when a limit that decided it sits
// within its rounds' spread: for a claim that holds, any limit near; for
// one that does not, every failing limit near (one failing clearly is a
// clear failure). The margin names those limits' rounds. It sets Verdict
// (Holds or DoesNotHold), Near and Margin; the caller sets Why.
func (c *Claim) Judge(limits ...Limit) {
	holds := true
	var failing []Limit
	for _, l := range limits {
		if ok, _ := l.Decide(); !ok {
			holds = false
			failing = append(failing, l)
		}
	}
	var near []string
	switch {
	case holds:
		for _, l := range limits {
			if _, n := l.Decide(); n {
				near = append(near, l.Describe())
			}
		}
	default:
		all := true
		for _, l := range failing {
			if _, n := l.Decide(); n {
				near = append(near, l.Describe())
			} else {
				all = false
			}
		}
		if !all {
			near = nil
		}
	}
	c.Verdict = DoesNotHold
	if holds {
		c.Verdict = Holds
	}
	c.Near = len(near) > 0
	c.Margin = strings.Join(near, "; ")
}

// VerdictText is the verdict as the summary says it: "holds", "does not
// hold", "not evaluated", with ", near its limit" when the rounds straddle
// the limit that decided it.
func (c Claim) VerdictText() string {
	if c.Near && c.Verdict != NotEvaluated {
		return c.Verdict + ", near its limit"
	}
	return c.Verdict
}

// RoundValues is c's metric in each round (repeat) that has it, in run
// order; the summary alone when none does.
func RoundValues(c *Config, metric string) []float64 {
	var out []float64
	for _, r := range c.Rounds {
		if v, ok := r.Metrics[metric]; ok {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		if v, ok := c.Summary[metric]; ok {
			out = []float64{v}
		}
	}
	return out
}

// RoundRatios is a's metric over b's round by round (round i of two
// configurations ran in the same pass of the experiment, or back to back),
// or the summaries' ratio when their round counts differ.
func RoundRatios(a, b *Config, metric string) []float64 {
	x, y := RoundValues(a, metric), RoundValues(b, metric)
	var out []float64
	if len(x) == len(y) {
		for i := range x {
			if y[i] > 0 {
				out = append(out, x[i]/y[i])
			}
		}
	}
	if len(out) == 0 && b.Summary[metric] > 0 {
		out = []float64{a.Summary[metric] / b.Summary[metric]}
	}
	return out
}
