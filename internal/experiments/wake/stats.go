package wake

import (
	"github.com/parkbench/parkbench/internal/stats"
)

// meanSEM is perf's statistic: the mean of xs and the standard error of
// the mean as a percentage of the mean, which perf prints as (+-X%)
// (tools/perf/util/stat.c:46-57 stddev_stats = sqrt(s^2 / n) with the
// sample variance s^2, and :59-67 rel_stddev_stats = 100 x that / mean, at
// commit 021b462a51de). One value, or a zero mean, gives 0%, as perf
// prints it; none gives 0 and 0% (no caller has none: a run has at least
// one waker, a round at least one thread).
func meanSEM(xs []float64) (mean, semPct float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	mean, sem := stats.MeanSEM(xs)
	if len(xs) < 2 || mean == 0 {
		return mean, 0
	}
	return mean, 100 * sem / mean
}
