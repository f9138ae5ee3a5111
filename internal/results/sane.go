package results

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// signedMetrics are differences, which may be negative, per experiment:
// timeout's figures are overshoots past a deadline (an early return, which
// the experiment reports as a bug, is negative); herd's
// ctxsw_participants_extra is the participants' switches minus N; lock's
// and selfwake's over_harness_ns is a row's cost minus the empty loop's,
// each measured in its own rounds, so a row within the floor's noise of the
// floor reads a few nanoseconds below it; latency's anatomy_sum_off (the
// components' sum against the measured median) and anatomy_probe_effect
// (traced rounds against untraced) are relative differences either way.
var signedMetrics = map[string]map[string]bool{
	"latency":  {"anatomy_sum_off": true, "anatomy_probe_effect": true},
	"timeout":  {MMin: true, MMedian: true, MP99: true, MP999: true, MMax: true, MOvershootNs: true},
	"herd":     {"ctxsw_participants_extra": true},
	"lock":     {"over_harness_ns": true},
	"rwlock":   {"over_harness_ns": true},
	"selfwake": {"over_harness_ns": true},
}

// sentinelMetrics may hold -1, which they document as "none" or "not
// measured" (the text says which, for a report's legend); every other
// figure in a result is a time, a count, a fraction or a ratio and is never
// negative.
var sentinelMetrics = map[string]string{
	MReturn:             "this implementation's notify_all returns nothing; only parking_lot's returns a count",
	"same_cpu_fraction": "not measured (pinned placements)",
	"timerslack_ns":     "the thread's timer slack cannot be read here (off Linux)",
}

// Sentinel reports whether v is metric key's documented "none" (-1), and
// what it means there.
func Sentinel(key string, v float64) (meaning string, ok bool) {
	m, ok := sentinelMetrics[key]
	if !ok || v != -1 {
		return "", false
	}
	return m, true
}

// checkFigures refuses what the schema cannot: figures no measurement can
// produce (a negative latency or count, NaN or an infinity written by a
// foreign tool) and histograms that do not decode. A file that passes is
// safe to render, compare and plot; one that fails is an input error, not a
// verdict, so compare never judges a corrupt file "faster".
func checkFigures(f *File) error {
	for ei, e := range f.Experiments {
		if e == nil {
			return fmt.Errorf("experiments[%d] is null", ei)
		}
		for ci, c := range e.Configs {
			if c == nil {
				return fmt.Errorf("experiment %s: configs[%d] is null", e.Name, ci)
			}
			where := func(s string) string { return fmt.Sprintf("experiment %s, config %s: %s", e.Name, c.Key, s) }
			signed := signedMetrics[e.Name]
			if err := checkMetrics(c.Summary, signed); err != nil {
				return fmt.Errorf("%s", where("summary "+err.Error()))
			}
			for ri := range c.Rounds {
				r := &c.Rounds[ri]
				if err := checkMetrics(r.Metrics, signed); err != nil {
					return fmt.Errorf("%s", where(fmt.Sprintf("round %d %v", ri+1, err)))
				}
				if r.Histogram == "" {
					continue
				}
				h, err := r.Hist()
				if err != nil {
					return fmt.Errorf("%s", where(fmt.Sprintf("round %d: %v", ri+1, err)))
				}
				if h.TotalCount() < 0 || h.Min() < 0 {
					return fmt.Errorf("%s", where(fmt.Sprintf("round %d: corrupt histogram: negative count or value", ri+1)))
				}
			}
			// The spin probe is -1 where it cannot run (one CPU).
			if p := c.Probe; p != nil && ((p.SpinOneWayNs != -1 && bad(p.SpinOneWayNs)) || bad(p.SyscallNs)) {
				return fmt.Errorf("%s", where(fmt.Sprintf("probe figures %g ns, %g ns: must be finite and not negative (spin: -1 for not measured)", p.SpinOneWayNs, p.SyscallNs)))
			}
			if fr := c.Foreign; fr != nil {
				// Both are -1 where they could not be measured.
				for _, v := range []float64{fr.Fraction, fr.SameCPUFraction} {
					if v != -1 && (bad(v) || v > 1) {
						return fmt.Errorf("%s", where(fmt.Sprintf("CPU fraction %g: must be in [0, 1], or -1 for not measured", v)))
					}
				}
			}
		}
	}
	return nil
}

// checkMetrics refuses the first bad figure of m in the order of the names,
// so that a file is refused with the same message on every run (a map's
// own order changes from run to run).
func checkMetrics(m map[string]float64, signed map[string]bool) error {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if _, ok := Sentinel(k, v); ok {
			continue
		}
		if signed[k] && !math.IsNaN(v) && !math.IsInf(v, 0) {
			continue
		}
		if bad(v) {
			return fmt.Errorf("%s = %g: a measured figure is never negative, NaN or infinite", k, v)
		}
	}
	return nil
}

func bad(v float64) bool { return v < 0 || math.IsNaN(v) || math.IsInf(v, 0) }
