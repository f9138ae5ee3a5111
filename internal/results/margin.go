package results

import "github.com/parkbench/parkbench/internal/stats"

// Limit is one comparison of a claim: a figure (its value per round, in
// run order) against a limit, holding when it is at most the limit
// (AtMost) or at least it. It is the core the claim kit (internal/claim)
// decides every claim on: with three rounds no test reaches significance
// (a Mann-Whitney test of 3 against 3 cannot go below p = 0.10), so the
// median decides and the rounds' spread says how firmly (Decide).
type Limit struct {
	Rounds []float64
	Limit  float64
	AtMost bool
	// Noise, when set, is each round's measured noise: a half-width in the
	// figure's units around Rounds[i] (a missing or zero entry: none); a
	// round within its noise of the limit counts on both sides of it.
	Noise []float64
	// MinRounds, when set, is the rounds the figure needs before its
	// spread shows: with fewer (but some), the verdict is near its limit
	// whatever its value. One round of a figure that swings between runs
	// shows nothing of the swing (loaded's p99 ratio read 1.74x, then
	// 0.62x, in two default runs of one round each on the AMD EPYC
	// guest).
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
	holds = l.ok(stats.Median(l.Rounds))
	other, within := l.Sides(holds)
	return holds, other+within > 0 || len(l.Rounds) < l.MinRounds
}

// Sides counts l's rounds on the other side of the limit from the
// verdict holds (other), and those on its side but within their noise of
// the limit (within): either makes the verdict near its limit.
func (l Limit) Sides(holds bool) (other, within int) {
	for i, v := range l.Rounds {
		n := 0.0 // round i's half-width, none when missing or not positive
		if i < len(l.Noise) && l.Noise[i] > 0 {
			n = l.Noise[i]
		}
		switch {
		case l.ok(v) != holds:
			other++
		case l.ok(v-n) != holds || l.ok(v+n) != holds:
			within++
		}
	}
	return other, within
}

func (l Limit) ok(v float64) bool {
	if l.AtMost {
		return v <= l.Limit
	}
	return v >= l.Limit
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
