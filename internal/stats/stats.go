// Package stats is the one kit of summary statistics the upper floors
// share: the driver's summaries of rounds, the gate's verdicts, the trend's
// change points, wake's perf-style means and the anatomy's probe effect.
// It is written in the manner of golang.org/x/perf's benchmath
// (benchmath/sample.go): few functions, each with one stated definition,
// the inputs never modified.
//
// The rules every function keeps:
//
//   - An empty sample has no statistic: the result is NaN. A caller that
//     wants something else for none (0, a missing figure, an error) says so
//     where it calls, before it calls.
//   - A NaN anywhere in the sample gives NaN: no order statistic or mean of
//     a set that holds a non-number is a number. (slices.Sort puts NaNs
//     first, so without this rule a median would quietly shift.)
//   - The median is the middle value, or the mean of the two middle values
//     for an even count: the median of every set of figures (rounds,
//     repeats, gaps, trials). A quantile of raw samples is NearestRank, as
//     the HDR histograms read theirs; Quantile interpolates for the gate's
//     quartiles.
package stats

import (
	"math"
	"slices"
)

// Median of xs: the middle value, or the mean of the two middle values for
// an even count. NaN for none or when any value is NaN; xs is not modified.
func Median(xs []float64) float64 {
	s, ok := sorted(xs)
	if !ok {
		return math.NaN()
	}
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile is the q-quantile (0 <= q <= 1) of xs, linear between order
// statistics (Hyndman and Fan's type 7, R's and numpy's default): position
// q x (n-1) in the sorted sample. Quantile(xs, 0.5) is Median(xs). NaN for
// none or when any value is NaN; xs is not modified.
func Quantile(xs []float64, q float64) float64 {
	s, ok := sorted(xs)
	if !ok {
		return math.NaN()
	}
	h := q * float64(len(s)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// NearestRank is the q-quantile (0 < q <= 1) of sorted, ascending samples
// by the nearest-rank rule, as HDR histograms read theirs: the sample of
// rank ceil(q x n), which is always one of the samples. A product q x n
// that floating point puts a hair above a whole number k still gives rank
// k. The caller sorts (it usually reads several ranks of one sort). NaN for
// none or when a float sample is NaN (slices.Sort put it first).
func NearestRank[S ~[]E, E int64 | float64](sorted S, q float64) float64 {
	n := len(sorted)
	if n == 0 || sorted[0] != sorted[0] {
		return math.NaN()
	}
	r := int(math.Ceil(q*float64(n) - 1e-9))
	return float64(sorted[min(max(r, 1), n)-1])
}

// Mean of xs: their sum over their count. NaN for none or when any value
// is NaN.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// MeanSEM is the mean of xs and the standard error of that mean,
// sqrt(s^2 / n) with the sample variance s^2 (divisor n-1): perf stat's
// statistic (tools/perf/util/stat.c, stddev_stats). One value has a mean
// and no spread: sem is NaN. NaN for none or when any value is NaN.
func MeanSEM(xs []float64) (mean, sem float64) {
	mean = Mean(xs)
	n := float64(len(xs))
	if n < 2 || math.IsNaN(mean) {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / (n - 1) / n)
}

// Geomean of xs: exp of the mean of their logarithms. NaN for none or when
// any value is not positive (NaN included): a ratio of zero or below has no
// logarithm.
func Geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		if !(x > 0) {
			return math.NaN()
		}
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// sorted is an ascending copy of xs; false when xs is empty or holds a NaN.
func sorted(xs []float64) ([]float64, bool) {
	if len(xs) == 0 {
		return nil, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s, s[0] == s[0] // slices.Sort puts NaNs first
}
