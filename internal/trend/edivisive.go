// Package trend finds where recorded results moved: change points in each
// judged figure's series over one machine class's history, by e-divisive
// means (Matteson & James, JASA 109(505), 2014), the method of MongoDB's
// CI (Daly et al., ICPE 2020; mongodb/signal-processing-algorithms
// energy_statistics.py) and of Hunter / Apache Otava: a regression is a
// persistent shift in a series of runs, not one pair of them.
package trend

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/parkbench/parkbench/internal/stats"
)

// Options tune the detector.
type Options struct {
	// P is the significance level of each split's permutation test.
	P float64
	// Permutations per test.
	Permutations int
	// MinSegment is the fewest points on either side of a change point.
	MinSegment int
	// MinChange is the smallest relative change of the segment medians
	// that is reported (0.05: 5%), as Otava's magnitude filter.
	MinChange float64
}

// DefaultOptions: p < 0.01 with 999 permutations (the smallest p they can
// give is 1/1000; with 199, a clean step in 12 runs, whose exact p is
// 2/C(12,6) = 0.002, missed 0.01 one time in three), segments of 3 points
// at least, changes of 5% or more.
var DefaultOptions = Options{P: 0.01, Permutations: 999, MinSegment: 3, MinChange: 0.05}

// ChangePoint is a split of a series: the first index of the new segment.
type ChangePoint struct {
	Index int
	// Before and After are the medians of the segments on either side
	// (bounded by the neighbouring change points).
	Before, After float64
	// P is the permutation test's p-value of the split.
	P float64
}

// Detect returns the significant change points of x, in index order:
// e-divisive bisection, each candidate the split that maximises the
// energy statistic Q, kept when a permutation test of its segment gives
// p < P, then both sides searched again; finally changes smaller than
// MinChange (segment medians) are dropped. rng drives the permutations.
func Detect(x []float64, o Options, rng *rand.Rand) []ChangePoint {
	var cps []ChangePoint
	var split func(lo, hi int)
	split = func(lo, hi int) {
		seg := x[lo:hi]
		tau, q := bestSplit(seg, o.MinSegment)
		if tau < 0 {
			return
		}
		// Permutation test: how often does a shuffled segment split as
		// well as this one?
		perm := append([]float64(nil), seg...)
		ge := 0
		for range o.Permutations {
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			if _, qp := bestSplit(perm, o.MinSegment); qp >= q {
				ge++
			}
		}
		p := float64(ge+1) / float64(o.Permutations+1)
		if p >= o.P {
			return
		}
		cps = append(cps, ChangePoint{Index: lo + tau, P: p})
		split(lo, lo+tau)
		split(lo+tau, hi)
	}
	split(0, len(x))
	sort.Slice(cps, func(i, j int) bool { return cps[i].Index < cps[j].Index })
	var out []ChangePoint
	for i, c := range cps {
		lo, hi := 0, len(x)
		if i > 0 {
			lo = cps[i-1].Index
		}
		if i+1 < len(cps) {
			hi = cps[i+1].Index
		}
		// lo < c.Index < hi: a change point splits a segment in two non-empty parts.
		c.Before, c.After = stats.Median(x[lo:c.Index]), stats.Median(x[c.Index:hi])
		if c.Before != 0 && math.Abs(c.After/c.Before-1) >= o.MinChange {
			out = append(out, c)
		}
	}
	return out
}

// bestSplit returns the split tau (1..n-1, both sides at least min long)
// maximising the e-divisive statistic with exponent 1,
//
//	Q(tau) = tau(n-tau)/n * (2/(tau(n-tau)) Σ_{i<tau<=j} |x_i-x_j|
//	         - 1/C(tau,2) Σ_{i<k<tau} |x_i-x_k| - 1/C(n-tau,2) Σ_{tau<=j<k} |x_j-x_k|)
//
// (Matteson & James's Q with the end kappa fixed at n, as Hunter does),
// and Q there; tau -1 when the series is too short.
func bestSplit(x []float64, min int) (tau int, q float64) {
	n := len(x)
	if min < 2 {
		min = 2
	}
	if n < 2*min {
		return -1, 0
	}
	// |x_i - x_j| is computed where it is used, not kept in an n x n
	// matrix: a permutation test scans ~1000 shuffles per candidate split,
	// and the matrix was an allocation of n^2 floats each (the same values:
	// the same floating-point operation on the same two numbers). Moving
	// the split from t to t+1 moves x_t from the right segment to the
	// left: each step updates the three sums in O(n), so a whole scan is
	// O(n^2).
	var between, left, right float64
	t := min
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			switch {
			case j < t:
				left += math.Abs(x[i] - x[j])
			case i >= t:
				right += math.Abs(x[i] - x[j])
			default:
				between += math.Abs(x[i] - x[j])
			}
		}
	}
	tau, q = -1, math.Inf(-1)
	for ; t <= n-min; t++ {
		if t > min {
			// x_{t-1} moved from the right segment to the left one.
			m := t - 1
			var toLeft, toRight float64
			for i := 0; i < m; i++ {
				toLeft += math.Abs(x[i] - x[m])
			}
			for j := m + 1; j < n; j++ {
				toRight += math.Abs(x[m] - x[j])
			}
			left += toLeft
			right -= toRight
			between += toRight - toLeft
		}
		a, b := float64(t), float64(n-t)
		e := 2*between/(a*b) - left/(a*(a-1)/2) - right/(b*(b-1)/2)
		if v := a * b / float64(n) * e; v > q {
			tau, q = t, v
		}
	}
	return tau, q
}
