package herd

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// span is one waiter's hold of the mutex, from acquisition to release
// (monoclock ns): the holds, sorted by start, must not overlap.
type span struct{ a, b int64 }

// checkRaw verifies one repeat's correctness: each waiter left its
// wait exactly once, and no two holds overlapped.
func checkRaw(raw *repeatResult, impl string, n int) error {
	if len(raw.waiters) != n {
		return fmt.Errorf("herd correctness failure: %s N=%d: %d waiter records", impl, n, len(raw.waiters))
	}
	spans := make([]span, n)
	for i, w := range raw.waiters {
		if w.acquisitions != 1 {
			return fmt.Errorf("herd correctness failure: %s N=%d: waiter %d returned from its wait %d times, want exactly once", impl, n, i, w.acquisitions)
		}
		if w.rel < w.acq {
			return fmt.Errorf("herd correctness failure: %s N=%d: waiter %d's hold ends before it starts", impl, n, i)
		}
		spans[i] = span{w.acq, w.rel}
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.a, y.a) })
	for i := 1; i < n; i++ {
		if spans[i].a < spans[i-1].b {
			return fmt.Errorf("herd correctness failure: %s N=%d: two waiters held the mutex at once (a hold started %d ns before the previous one ended)",
				impl, n, spans[i-1].b-spans[i].a)
		}
	}
	return nil
}

// roundOf turns one repeat into a Round.
func roundOf(raw *repeatResult, n int, hold time.Duration) results.Round {
	m := map[string]float64{}
	first, last := int64(1<<62), int64(-1<<62)
	firstCPU := -1
	var parts, invol int64
	partsKnown := true
	var holds int64
	var spurious int64
	var ph [6]int64 // setup, wake, release; then their involuntary parts
	phasesKnown := true
	spans := make([]span, 0, n)
	for _, w := range raw.waiters {
		if w.acq < first {
			first = w.acq
			firstCPU = w.cpu
		}
		last = max(last, w.rel)
		if w.csw < 0 {
			partsKnown = false
		}
		parts += w.csw
		invol += w.invol
		if w.cswNotify < 0 || w.cswAcq < 0 || w.csw < 0 {
			phasesKnown = false
		} else {
			ph[0] += w.cswNotify
			ph[1] += w.cswAcq - w.cswNotify
			ph[2] += w.csw - w.cswAcq
			ph[3] += w.involNotify
			ph[4] += w.involAcq - w.involNotify
			ph[5] += w.invol - w.involAcq
		}
		holds += w.rel - w.acq
		spurious += w.waitReturns - 1
		spans = append(spans, span{w.acq, w.rel})
	}
	slices.SortFunc(spans, func(x, y span) int { return cmp.Compare(x.a, y.a) })
	var gaps []float64
	for i := 1; i < len(spans); i++ {
		gaps = append(gaps, float64(spans[i].a-spans[i-1].b))
	}
	m[results.MReturn] = float64(raw.out.ret)
	m[results.MFirstNs] = float64(first - raw.t0)
	m[results.MTotalNs] = float64(last - raw.t0)
	m[results.MCtxSwProc] = float64(raw.procCsw)
	if partsKnown {
		m[results.MCtxSwParts] = float64(parts)
		m[mCswExtra] = float64(parts - int64(n))
		m[mCswInvol] = float64(invol)
	}
	if partsKnown && phasesKnown && len(raw.waiters) > 0 {
		for i, k := range []string{mCswSetup, mCswWake, mCswRelease, mCswSetupInvol, mCswWakeInvol, mCswReleaseInvol} {
			m[k] = float64(ph[i])
		}
	}
	if raw.notifierCsw >= 0 {
		m[mCswNotifier] = float64(raw.notifierCsw)
	}
	if raw.out.unparked >= 0 {
		m[results.MUnparked] = float64(raw.out.unparked)
	}
	if raw.out.requeued >= 0 {
		m[results.MRequeued] = float64(raw.out.requeued)
	}
	if len(gaps) > 0 {
		m[mHandoff] = stats.Median(gaps)
		m[mHandoffMax] = slices.Max(gaps)
		sum := 0.0
		for _, g := range gaps {
			sum += g
		}
		m[mHandoffMean] = sum / float64(len(gaps))
	} else {
		m[mHandoffMean] = 0
		m[mHandoff] = 0
		m[mHandoffMax] = 0
	}
	m[mHoldMean] = float64(holds) / float64(n)
	if expect := float64(n)*float64(hold) + float64(n-1)*m[mHandoffMean] + m[results.MFirstNs]; expect > 0 {
		m[mSerial] = m[results.MTotalNs] / expect
	}
	m[mSpurious] = float64(spurious)
	// The CPU a thread ran on is -1 where it cannot be read (every OS but
	// Linux): then the metric is absent, never negative (results.Sane).
	if raw.notifierCPU >= 0 {
		m[mNotifierCPU] = float64(raw.notifierCPU)
	}
	if firstCPU >= 0 {
		m[mFirstCPU] = float64(firstCPU)
	}
	if raw.notifierCPU >= 0 && firstCPU >= 0 {
		if raw.notifierCPU == firstCPU {
			m[mFirstIsCPU] = 1
		} else {
			m[mFirstIsCPU] = 0
		}
	}
	m["waiters"] = float64(n)
	if raw.trace != nil {
		raw.trace.Metrics(m, raw.traceLost)
	}
	return results.Round{Metrics: m}
}

// buildConfig builds one configuration from its repeats.
func buildConfig(im implSpec, g configGroup, o Options, raws []*repeatResult, procs int) (*results.Config, error) {
	nm := ModeAll
	if g.oneLoop {
		nm = ModeOneLoop
	}
	threads := "goroutines locked to their OS threads (osthread.Go)"
	switch {
	case im.goroutines:
		threads = "plain goroutines (goroutine level)"
	case im.c:
		threads = "C threads (pthread_create), no Go runtime in the loop"
	}
	c := &results.Config{
		Key:       configKey(im.label(), g),
		Impl:      im.name,
		Kind:      im.kind,
		Placement: g.placement,
		Params: map[string]string{
			"n":          strconv.Itoa(g.n),
			"hold":       o.Hold.String(),
			"notify":     nm,
			"lock_held":  strconv.FormatBool(g.lockHeld),
			"gomaxprocs": strconv.Itoa(procs),
			"threads":    threads,
			// sync is goroutines whatever was asked (as always).
			"participants": participantsOf(im),
		},
	}
	if strings.HasPrefix(im.name, "lot") {
		c.Params["parker"] = lot.CurrentBackend().Name
	}
	if len(raws) > 0 {
		c.Params["sleep_check"] = raws[0].sleepCheck
	}
	flagged, lost, why := 0, uint64(0), ""
	for _, raw := range raws {
		if raw.trace != nil {
			flagged += raw.trace.Flagged
			lost += raw.traceLost
			if why == "" {
				why = raw.trace.Why
			}
		}
	}
	if flagged > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("anatomy: %d of %d traced waiters not placed by the trace (e.g. %s): counted apart, not as \"did not sleep again\"", flagged, g.n*len(raws), why))
	}
	if lost > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("anatomy: the kernel dropped %d trace records (rings full): the waiters around them are not placed", lost))
	}
	hist := hdrhistogram.New(1, int64(10*time.Minute), 3)
	for _, raw := range raws {
		r := roundOf(raw, g.n, o.Hold)
		c.Rounds = append(c.Rounds, r)
		driver.RecordAll(hist, int64(r.Metrics[results.MFirstNs]))
	}
	if len(c.Rounds) > 0 {
		enc, err := results.EncodeHist(hist)
		if err != nil {
			return nil, fmt.Errorf("herd %s: %w", c.Key, err)
		}
		c.Rounds[0].Histogram = enc
	}
	c.Summary = summarize(c.Rounds)
	return c, nil
}

// summarize is the median over rounds of every metric, plus _min and
// _max of the main ones.
func summarize(rounds []results.Round) map[string]float64 {
	var ms []map[string]float64
	for _, r := range rounds {
		ms = append(ms, r.Metrics)
	}
	s := driver.MedianOfRounds(ms)
	vals := driver.ByMetric(ms)
	for _, k := range minMaxMetrics {
		if v, ok := vals[k]; ok && len(v) > 0 {
			s[k+"_min"] = slices.Min(v)
			s[k+"_max"] = slices.Max(v)
		}
	}
	return s
}
