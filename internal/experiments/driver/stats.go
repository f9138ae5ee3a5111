package driver

import (
	"math"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/results"
)

// Latency histogram range: 1 ns to 10 s, 3 significant figures.
const (
	HistLowest  = 1
	HistHighest = 10_000_000_000
	HistSigFigs = 3
)

// NewHist is a latency histogram (ns, HistLowest..HistHighest).
func NewHist() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistSigFigs)
}

// RecordAll records samples (ns) into h, clamped into h's range: a value
// outside it is counted at the nearest end rather than lost.
func RecordAll(h *hdrhistogram.Histogram, samples ...int64) {
	lo, hi := h.LowestTrackableValue(), h.HighestTrackableValue()
	for _, v := range samples {
		_ = h.RecordValue(min(max(v, lo), hi)) // in range: cannot fail
	}
}

// HistMetrics puts the distribution figures of h into m (min, median,
// p99, p99.9, max, samples).
func HistMetrics(h *hdrhistogram.Histogram, m map[string]float64) {
	m[results.MMin] = float64(h.Min())
	m[results.MMedian] = float64(h.ValueAtQuantile(50))
	m[results.MP99] = float64(h.ValueAtQuantile(99))
	m[results.MP999] = float64(h.ValueAtQuantile(99.9))
	m[results.MMax] = float64(h.Max())
	m[results.MSamples] = float64(h.TotalCount())
}

// Median of vs: the middle value, or the mean of the two middle values
// for an even count (0 for none); vs is not modified. This is the one
// median of a set of figures (rounds, repeats, gaps): the summary of every
// configuration is the Median of its rounds. A quantile of raw samples is
// NearestRank, as the histograms read theirs.
func Median(vs []float64) float64 { return results.Median(vs) }

// ByMetric gathers each metric's values over rounds, in round order.
func ByMetric(rounds []map[string]float64) map[string][]float64 {
	vals := map[string][]float64{}
	for _, r := range rounds {
		for k, v := range r {
			vals[k] = append(vals[k], v)
		}
	}
	return vals
}

// MedianOfRounds is a Config.Summary: for each metric, the median of its
// values over the rounds that have it.
func MedianOfRounds(rounds []map[string]float64) map[string]float64 {
	vals := ByMetric(rounds)
	out := make(map[string]float64, len(vals))
	for k, vs := range vals {
		out[k] = Median(vs)
	}
	return out
}

// NearestRank is the q-quantile (0 < q <= 1) of sorted, ascending samples
// by the nearest-rank rule, as HDR histograms read theirs: the sample of
// rank ceil(q x n), which is always one of the samples (0 for none). A
// product q x n that floating point puts a hair above a whole number k
// still gives rank k.
func NearestRank[S ~[]E, E int64 | float64](sorted S, q float64) E {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	r := int(math.Ceil(q*float64(n) - 1e-9))
	return sorted[min(max(r, 1), n)-1]
}
