package driver

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
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

// MedianOfRounds is a Config.Summary: for each metric, the median
// (stats.Median, the one median of a set of figures) of its values over the
// rounds that have it; a metric no round has is absent, so no median is
// taken of none.
func MedianOfRounds(rounds []map[string]float64) map[string]float64 {
	vals := ByMetric(rounds)
	out := make(map[string]float64, len(vals))
	for k, vs := range vals {
		out[k] = stats.Median(vs)
	}
	return out
}
