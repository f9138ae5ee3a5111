package schedacct

import (
	"math"
	"runtime/metrics"
)

// The Go runtime's own figures over a window (runtime/metrics): how long
// runnable goroutines waited to run, and how many goroutines and threads
// there were at its end.
const (
	metricLatencies  = "/sched/latencies:seconds"
	metricGoroutines = "/sched/goroutines:goroutines"
	metricThreads    = "/sched/threads/total:threads"
)

// RuntimeSample is one read of the runtime's scheduler metrics.
type RuntimeSample struct {
	latencies  *metrics.Float64Histogram
	goroutines uint64
	threads    uint64
	ok         bool
}

// RuntimeWindow is what the runtime says happened between two samples.
type RuntimeWindow struct {
	// Scheduled: goroutines that went from runnable to running (the
	// /sched/latencies histogram's new samples).
	Scheduled uint64
	// LatencyMedianNs and LatencyP99Ns: how long they waited runnable,
	// read at the upper bound of the histogram's bucket (its buckets are
	// exponential: the figure is an upper bound, within the bucket's
	// width); -1 when nothing was scheduled.
	LatencyMedianNs, LatencyP99Ns float64
	// Goroutines and Threads at the window's end (threads: live Ms).
	Goroutines, Threads uint64
	// OK: the runtime had every metric.
	OK bool
}

// ReadRuntime samples the scheduler metrics (allocates: read it outside a
// measured loop).
func ReadRuntime() RuntimeSample {
	s := []metrics.Sample{{Name: metricLatencies}, {Name: metricGoroutines}, {Name: metricThreads}}
	metrics.Read(s)
	var r RuntimeSample
	r.ok = true
	if s[0].Value.Kind() == metrics.KindFloat64Histogram {
		r.latencies = s[0].Value.Float64Histogram()
	} else {
		r.ok = false
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		r.goroutines = s[1].Value.Uint64()
	} else {
		r.ok = false
	}
	if s[2].Value.Kind() == metrics.KindUint64 {
		r.threads = s[2].Value.Uint64()
	} else {
		r.ok = false
	}
	return r
}

// Since is the window from old to s.
func (s RuntimeSample) Since(old RuntimeSample) RuntimeWindow {
	w := RuntimeWindow{Goroutines: s.goroutines, Threads: s.threads, OK: s.ok && old.ok, LatencyMedianNs: -1, LatencyP99Ns: -1}
	if !w.OK || len(s.latencies.Counts) != len(old.latencies.Counts) {
		w.OK = false
		return w
	}
	delta := make([]uint64, len(s.latencies.Counts))
	for i := range delta {
		delta[i] = s.latencies.Counts[i] - old.latencies.Counts[i]
		w.Scheduled += delta[i]
	}
	w.LatencyMedianNs = HistQuantile(delta, s.latencies.Buckets, 0.50)
	w.LatencyP99Ns = HistQuantile(delta, s.latencies.Buckets, 0.99)
	return w
}

// HistQuantile is the q quantile of a runtime/metrics histogram (counts[i]
// in [buckets[i], buckets[i+1])) in ns: the upper bound of the bucket that
// holds it (the lower bound for the last, open bucket); -1 when empty.
func HistQuantile(counts []uint64, buckets []float64, q float64) float64 {
	var total uint64
	for _, c := range counts {
		total += c
	}
	if total == 0 || len(buckets) != len(counts)+1 {
		return -1
	}
	rank := uint64(math.Ceil(q * float64(total)))
	rank = max(rank, 1)
	var cum uint64
	for i, c := range counts {
		cum += c
		if cum >= rank {
			hi := buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = buckets[i]
			}
			return hi * 1e9
		}
	}
	return buckets[len(buckets)-1] * 1e9
}
