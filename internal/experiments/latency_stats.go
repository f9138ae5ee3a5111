package experiments

import (
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
)

// Metric names of E12 beyond the shared ones in package results.
const (
	// MNoSleepFraction is no_sleep_waits / waits (2 per round trip).
	MNoSleepFraction = "no_sleep_fraction"
	// MParkImmediate is the parkers' own count (WaitCounter, or the lot's
	// ParkInvalid returns) of park calls that returned without blocking,
	// also those inside a wait that then slept (a stale unpark).
	MParkImmediate = "park_immediate"
	// MCtxSwOther is ctxsw_self_per_rt - ctxsw_thread_per_rt: switches of
	// the process's other threads per round trip. For the Go waits through
	// Syscall this is the runtime at work (sysmon retaking the P of a
	// participant blocked in FUTEX_WAIT, an M taking it over); near 0 for
	// the C reference and for RawSyscall waits.
	MCtxSwOther = "ctxsw_other_per_rt"
	// MSameCPU is the fraction of sampled wakes (every 16th) where waker
	// and woken ran on one CPU; unpinned configurations only.
	MSameCPU = "same_cpu_fraction"
	// MAllocsPerRT is heap allocations per measured round trip (Go
	// implementations; runtime.MemStats.Mallocs delta around the round).
	MAllocsPerRT = "allocs_per_rt"
	// MGCCycles counts GC cycles that ran inside the round (should be 0).
	MGCCycles = "gc_cycles"
	// MCtxSwPerPair is selfwake's participant context switches per pair.
	MCtxSwPerPair = "ctxsw_thread_per_pair"
	// MAllocsPerPair is selfwake's heap allocations per pair.
	MAllocsPerPair = "allocs_per_pair"
	// MSyscallNs is the probe's cost of one trivial syscall (context for
	// selfwake's figures).
	MSyscallNs = "syscall_ns"
	// MSleptWaits is selfwake c-futex's count of waits that slept.
	MSleptWaits = "slept_waits"
)

// Histogram range: 1 ns to 10 s, 3 significant figures.
const (
	histLowest  = 1
	histHighest = 10_000_000_000
	histSigFigs = 3
)

func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(histLowest, histHighest, histSigFigs) }

// recordAll records samples (ns), clamped into the histogram's range.
func recordAll(h *hdrhistogram.Histogram, samples []int64) {
	for _, v := range samples {
		if v < histLowest {
			v = histLowest
		}
		if v > histHighest {
			v = histHighest
		}
		_ = h.RecordValue(v)
	}
}

// histMetrics puts the distribution figures of h into m.
func histMetrics(h *hdrhistogram.Histogram, m map[string]float64) {
	m[results.MMin] = float64(h.Min())
	m[results.MMedian] = float64(h.ValueAtQuantile(50))
	m[results.MP99] = float64(h.ValueAtQuantile(99))
	m[results.MP999] = float64(h.ValueAtQuantile(99.9))
	m[results.MMax] = float64(h.Max())
	m[results.MSamples] = float64(h.TotalCount())
}

// encodeHist is the Round.Histogram encoding (V2 compressed, base64).
func encodeHist(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// medianOfRounds is the Summary: for each metric, the median of its values
// over the rounds that have it (mean of the middle two for an even count).
func medianOfRounds(rounds []map[string]float64) map[string]float64 {
	vals := map[string][]float64{}
	for _, r := range rounds {
		for k, v := range r {
			vals[k] = append(vals[k], v)
		}
	}
	out := make(map[string]float64, len(vals))
	for k, vs := range vals {
		out[k] = median(vs)
	}
	return out
}

// median of vs (sorted in place); 0 for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	sort.Float64s(vs)
	n := len(vs)
	if n%2 == 1 {
		return vs[n/2]
	}
	return (vs[n/2-1] + vs[n/2]) / 2
}

// measureProbe is probe.Measure; tests that only check the structure of a
// result replace it with a cheap stand-in, since the real probe (a spin
// ping-pong and 60 000 syscalls) dominates a tiny run under -race.
var measureProbe = probe.Measure
