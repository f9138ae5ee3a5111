package anatomy

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// Figure names (results metrics) of an anatomy.
const (
	// MSumMedian is the sum of the components' medians; MMeasuredMedian
	// the median of t1 - t0 over the traced wakes that slept; MSumOff
	// (sum - measured) / measured.
	MSumMedian      = "anatomy_sum_median_ns"
	MMeasuredMedian = "anatomy_measured_median_ns"
	MSumOff         = "anatomy_sum_off"
	// MIdleShare is the median over decomposed wakes of idle_exit / (t1 - t0).
	MIdleShare = "anatomy_idle_exit_share"
	// MRQWaitMedian is the median schedule of wakes whose CPU was busy.
	MRQWaitMedian = "anatomy_rq_wait_median_ns"
	// Counts of the outcomes.
	MIdleWakes = "anatomy_idle_wakes"
	MBusyWakes = "anatomy_busy_wakes"
	MNoSleep   = "anatomy_nosleep_waits"
	MAwake     = "anatomy_awake_wakes"
	MFlagged   = "anatomy_flagged_wakes"
	// MLostRecords is the rings' lost-record count.
	MLostRecords = "anatomy_lost_records"
	// MProbeEffect is the median over rounds of traced / untraced - 1,
	// each traced round against its untraced twin (the experiment
	// measures it; PairTrace.Finish).
	MProbeEffect = "anatomy_probe_effect"
	// MTracedMedian is the median of the traced rounds (the probe
	// effect's numerator).
	MTracedMedian = "anatomy_traced_median_ns"
)

// MedianKey and P99Key name a component's figures.
func MedianKey(c string) string { return "anatomy_" + c + "_median_ns" }
func P99Key(c string) string    { return "anatomy_" + c + "_p99_ns" }

// Summary is the anatomy of many wakes.
type Summary struct {
	Counts [nOutcomes]int
	// Reasons: the first reason seen per flagged outcome; ByReason: how
	// many wakes each reason (its wording without the figures) flagged,
	// with its first example.
	Reasons  map[Outcome]string
	ByReason map[string]ReasonCount
	// Median and P99 per component (Components order), over the
	// decomposed wakes; MeasuredMedian over the wakes that slept.
	Median, P99    [5]float64
	MeasuredMedian float64
	IdleShare      float64
	RQWaitMedian   float64
	// IdleStates counts Idle wakes by the state the CPU sat in.
	IdleStates map[int64]int
}

// Decomposed is the number of decomposed wakes.
func (s Summary) Decomposed() int { return s.Counts[Idle] + s.Counts[Busy] }

// Flagged is the number of flagged wakes.
func (s Summary) Flagged() int {
	n := 0
	for o := Missing; o < nOutcomes; o++ {
		n += s.Counts[o]
	}
	return n
}

// SumMedian is the sum of the components' medians.
func (s Summary) SumMedian() float64 {
	t := 0.0
	for _, v := range s.Median {
		t += v
	}
	return t
}

func nearestRank(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	r := int(math.Ceil(q*float64(n) - 1e-9))
	return sorted[min(max(r, 1), n)-1]
}

// Summarize folds joined wakes; measured are the t1 - t0 of the wakes that
// slept (whatever their outcome), for the check against the sum.
func Summarize(parts []Parts, measured []int64) Summary {
	var p Pool
	for _, w := range parts {
		p.Add(w)
	}
	for _, v := range measured {
		p.Measured(v)
	}
	return p.Summary()
}

// Metrics writes s's figures into m (lost: the rings' lost records). A
// configuration with no decomposed wake gets its counts only.
func (s Summary) Metrics(m map[string]float64, lost uint64) {
	m[MIdleWakes] = float64(s.Counts[Idle])
	m[MBusyWakes] = float64(s.Counts[Busy])
	m[MNoSleep] = float64(s.Counts[NoSleep])
	m[MAwake] = float64(s.Counts[Awake])
	m[MFlagged] = float64(s.Flagged())
	m[MLostRecords] = float64(lost)
	if s.Decomposed() == 0 {
		return
	}
	for i, c := range Components {
		m[MedianKey(c)] = s.Median[i]
		m[P99Key(c)] = s.P99[i]
	}
	m[MSumMedian] = s.SumMedian()
	if s.MeasuredMedian > 0 {
		m[MMeasuredMedian] = s.MeasuredMedian
		m[MSumOff] = s.SumMedian()/s.MeasuredMedian - 1
	}
	m[MIdleShare] = s.IdleShare
	if s.Counts[Busy] > 0 {
		m[MRQWaitMedian] = s.RQWaitMedian
	}
}

// ReasonCount is how many wakes one reason flagged.
type ReasonCount struct {
	Outcome Outcome
	N       int
	Example string
}

// FlagLine says what was not decomposed and why, in one line ("" when
// every wake was): per outcome its count, then each reason's count with
// an example, most frequent first.
func (s Summary) FlagLine() string {
	var parts []string
	for o := Missing; o < nOutcomes; o++ {
		n := s.Counts[o]
		if n == 0 {
			continue
		}
		var rs []ReasonCount
		for _, rc := range s.ByReason {
			if rc.Outcome == o {
				rs = append(rs, rc)
			}
		}
		slices.SortFunc(rs, func(a, b ReasonCount) int { return cmp.Or(b.N-a.N, strings.Compare(a.Example, b.Example)) })
		var why []string
		for _, rc := range rs {
			why = append(why, fmt.Sprintf("%d: %s", rc.N, rc.Example))
		}
		if len(why) == 0 {
			why = append(why, "e.g. "+s.Reasons[o])
		}
		parts = append(parts, fmt.Sprintf("%d %s (%s)", n, o, strings.Join(why, "; ")))
	}
	return strings.Join(parts, "; ")
}

// MetricSpecs describes the anatomy's figures (results.MetricSpec), for
// an experiment run with --anatomy: the components' medians are judged
// by compare as any figure; they are shown in report's anatomy table
// (Section), not as columns.
func MetricSpecs() []results.MetricSpec {
	var out []results.MetricSpec
	for _, c := range Components {
		bench := strings.ReplaceAll(c, "_", "-")
		out = append(out,
			results.MetricSpec{Key: MedianKey(c), Header: c, Unit: results.UnitMicros, Better: results.Lower, Judged: true,
				Benchstat: "anatomy-" + bench + "-ns/op", Section: results.SectionAnatomy},
			results.MetricSpec{Key: P99Key(c), Header: c + " p99", Unit: results.UnitMicros, Better: results.Lower,
				Section: results.SectionAnatomy})
	}
	diag := func(key, header, unit string) results.MetricSpec {
		return results.MetricSpec{Key: key, Header: header, Unit: unit, Better: results.Lower, Diagnostic: true, Section: results.SectionAnatomy}
	}
	return append(out,
		diag(MSumMedian, "sum", results.UnitMicros),
		diag(MMeasuredMedian, "measured", results.UnitMicros),
		diag(MSumOff, "off", ""),
		diag(MIdleShare, "idle share", ""),
		diag(MRQWaitMedian, "rq wait", results.UnitMicros),
		diag(MIdleWakes, "idle", ""),
		diag(MBusyWakes, "busy", ""),
		diag(MNoSleep, "no-sleep", ""),
		diag(MAwake, "awake", ""),
		diag(MFlagged, "flagged", ""),
		diag(MLostRecords, "lost", ""),
		diag(MTracedMedian, "traced median", results.UnitMicros),
		diag(MProbeEffect, "probe", ""),
	)
}
