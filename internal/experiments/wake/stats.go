package wake

import (
	"slices"
)

import "math"

// meanSEM is perf's statistic: the mean of xs and the standard error of
// the mean as a percentage of the mean, which perf prints as (+-X%)
// (tools/perf/util/stat.c:46-57 stddev_stats = sqrt(s^2 / n) with the
// sample variance s^2, and :59-67 rel_stddev_stats = 100 x that / mean, at
// commit 021b462a51de). One value, or a zero mean, gives 0%.
func meanSEM(xs []float64) (mean, semPct float64) {
	n := float64(len(xs))
	if n == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= n
	if n < 2 || mean == 0 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	variance := ss / (n - 1)
	return mean, 100 * math.Sqrt(variance/n) / mean
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

func avg(xs []float64) float64 {
	m, _ := meanSEM(xs)
	return m
}
