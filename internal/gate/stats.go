package gate

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/parkbench/parkbench/internal/stats"
	"github.com/parkbench/parkbench/internal/verdict"
)

// uTest is the U test's p-value, base against new: the one path compare
// and the gate reach it by (verdict.UTest, benchstat's test).
func uTest(base, new []float64) float64 { return verdict.UTest(base, new) }

// scaleTest is a rank test of spread: the U test on each trial's absolute
// deviation from the median of both sides pooled (a rank form of the
// Brown-Forsythe test). Under no change the deviations of both sides are
// exchangeable, so its p-value is as valid as the U test's; it sees what
// the U test misses, a change of spread at about the same median, as when
// a row's trials split between two regimes (docs/gate.md). Perfherder's
// detectors include Levene's test for the same reason, Pinpoint adds
// Kolmogorov-Smirnov (catapult pinpoint/models/compare/compare.py).
func scaleTest(base, new []float64) float64 {
	m := stats.Median(append(slices.Clone(base), new...))
	dev := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = math.Abs(x - m)
		}
		return out
	}
	return uTest(dev(base), dev(new))
}

// holm returns Holm's step-down adjusted p-values: a hypothesis is
// rejected at family-wise level a when its adjusted p is <= a. Holm
// controls the family-wise error rate under any dependence between the
// tests (Holm, Scand. J. Statist. 6(2), 1979).
func holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	adj := make([]float64, m)
	run := 0.0
	for k, i := range idx {
		v := math.Min(1, float64(m-k)*p[i])
		run = math.Max(run, v) // monotone: never below an earlier step's
		adj[i] = run
	}
	return adj
}

// ratioCI is the percentile bootstrap interval, at level conf, of
// median(new) / median(base): both samples resampled with replacement,
// resamples times, with rng (the gate's seed, so a run can be redone).
func ratioCI(base, new []float64, conf float64, resamples int, rng *rand.Rand) (lo, hi float64) {
	if len(base) == 0 || len(new) == 0 {
		return math.NaN(), math.NaN()
	}
	rs := make([]float64, 0, resamples)
	bb, nb := make([]float64, len(base)), make([]float64, len(new))
	for range resamples {
		for i := range bb {
			bb[i] = base[rng.IntN(len(base))]
		}
		for i := range nb {
			nb[i] = new[rng.IntN(len(new))]
		}
		if d := stats.Median(bb); d > 0 {
			rs = append(rs, stats.Median(nb)/d)
		}
	}
	if len(rs) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(rs)
	q := func(p float64) float64 {
		i := int(math.Floor(p * float64(len(rs)-1)))
		return rs[min(max(i, 0), len(rs)-1)]
	}
	return q((1 - conf) / 2), q(1 - (1-conf)/2)
}
