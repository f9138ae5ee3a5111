package anatomy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// The anatomy on the pages (internal/report/section): latency's and herd's
// registry entries carry these.
var (
	// LatencySection is latency --anatomy's table, its stacked bars and
	// compare's component lines.
	LatencySection = section.Section{Tables: latencyTables, Bars: anatomyBars, Parts: componentParts(),
		BarNote:    "each bar: the components' medians of one configuration, on one scale for every machine of this experiment",
		PartsTitle: "anatomy (latency --anatomy, the table's component rows: same figures, same test)"}
	// HerdSection is herd --anatomy's count from the trace.
	HerdSection = section.Section{Tables: herdTables}
)

// hasAnatomy reports whether any configuration of e carries a wake anatomy
// (parkbench latency --anatomy).
func hasAnatomy(e *results.Experiment) bool {
	for _, c := range e.Configs {
		if _, ok := c.Summary[MSumMedian]; ok {
			return true
		}
		if _, ok := c.Summary[MNoSleep]; ok {
			return true
		}
	}
	return false
}

// AnatomyTable is the anatomy of e's configurations: one row each, the
// components' medians, their sum against the measured median, the wakes
// by shape, and the probe effect.
func AnatomyTable(e *results.Experiment, key func(string) string) textfmt.Table {
	t := textfmt.Table{
		Header:   []string{"config"},
		Priority: []int{section.Keep},
	}
	for _, c := range Components {
		t.Header = append(t.Header, c)
		t.Priority = append(t.Priority, section.Keep)
	}
	// measured is the configuration table's median (the experiment's main
	// figure: the wake, over the same untraced rounds); traced is the
	// median of the traced waits that slept, which the components
	// decompose and the sum is held against (off).
	t.Header = append(t.Header, "sum (off)", "traced", "measured", "idle/busy", "flagged", "probe")
	t.Priority = append(t.Priority, section.Keep, section.Judged, section.Keep, section.Judged, section.Other, section.Keep)
	main := e.MainKey()
	us := func(s map[string]float64, k string) string {
		v, ok := s[k]
		if !ok {
			return "-"
		}
		return strconv.FormatFloat(v/1000, 'f', 1, 64)
	}
	pct := func(v float64) string { return fmt.Sprintf("%+.0f%%", 100*v) }
	for _, c := range e.Configs {
		s := c.Summary
		if _, ok := s[MNoSleep]; !ok {
			continue
		}
		row := []string{key(c.Key)}
		for _, comp := range Components {
			row = append(row, us(s, MedianKey(comp)))
		}
		sum := us(s, MSumMedian)
		if off, ok := s[MSumOff]; ok {
			sum += " (" + pct(off) + ")"
		}
		probe := "-"
		if v, ok := s[MProbeEffect]; ok {
			probe = pct(v)
		}
		row = append(row, sum, us(s, MMeasuredMedian), us(s, main),
			fmt.Sprintf("%d/%d", int(s[MIdleWakes]), int(s[MBusyWakes])),
			strconv.Itoa(int(s[MFlagged])), probe)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HerdTraceTable is herd --anatomy's count per configuration: the medians
// over repeats of the waiters that slept again after the notify, their
// sleeps, their runnable switch-outs, and the waiters traced / not placed.
func HerdTraceTable(e *results.Experiment, key func(string) string) textfmt.Table {
	t := textfmt.Table{Header: []string{"config", "slept again", "resleeps", "yield/preempt", "traced", "flagged"},
		Priority: []int{section.Keep, section.Keep, section.Keep, section.Other, section.Other, section.Other}}
	keys := []string{MHerdSleptAgain, MHerdResleeps, MHerdRunnable, MHerdTraced, MHerdFlagged}
	for _, c := range e.Configs {
		if _, ok := c.Summary[MHerdSleptAgain]; !ok {
			continue
		}
		row := []string{key(c.Key)}
		for _, k := range keys {
			row = append(row, strconv.FormatFloat(c.Summary[k], 'f', -1, 64))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// herdTables is herd --anatomy's table, when e has one (text pages only).
func herdTables(e *results.Experiment, key func(string) string) []section.Table {
	ht := HerdTraceTable(e, key)
	if len(ht.Rows) == 0 {
		return nil
	}
	return []section.Table{{Table: ht, Intro: "herd --anatomy, from the trace (sched_switch; docs/anatomy.md): per notify, median over repeats, the waiters " +
		"switched in after the notify that slept again before holding the mutex (slept again; resleeps: their sleeps), " +
		"their runnable switch-outs (yield or preemption), and the waiters traced / not placed by the trace"}}
}

// latencyTables is latency --anatomy's table, when e has one.
func latencyTables(e *results.Experiment, key func(string) string) []section.Table {
	if !hasAnatomy(e) {
		return nil
	}
	return []section.Table{{Table: AnatomyTable(e, key), HTMLTitle: "Where a wake's time goes (anatomy, µs)",
		Intro: "anatomy of the traced wakes (docs/anatomy.md): component medians in µs; sum of the medians against the " +
			"median of the traced waits that slept (traced; off: how far); measured: the table's median, the untraced rounds'; idle/busy: wakes whose CPU was idle or ran another task " +
			"(busy: schedule is the run-queue wait); probe: each traced round against its untraced twin (interleaved), the median over rounds"}}
}

// anatomyBars are e's stacked bars of component medians.
func anatomyBars(e *results.Experiment, key func(string) string) []section.Bar {
	var out []section.Bar
	for _, c := range e.Configs {
		s := c.Summary
		if _, ok := s[MSumMedian]; !ok {
			continue
		}
		b := section.Bar{Config: key(c.Key)}
		var label []string
		sum := 0.0
		for _, comp := range Components {
			v := s[MedianKey(comp)]
			p := section.BarPart{Name: comp, Value: v, Title: fmt.Sprintf("%s %.1f µs", comp, v/1000)}
			b.Parts = append(b.Parts, p)
			label = append(label, p.Title)
			sum += v
		}
		b.Total = fmt.Sprintf("%.1f µs", sum/1000)
		b.Label = c.Key + ": " + strings.Join(label, ", ")
		out = append(out, b)
	}
	return out
}

// componentWhat says what each component is, for the summary's headline
// sentence (the residual, unattributed, is never named there).
var componentWhat = map[string]string{
	Call:     "the wake call",
	IdleExit: "the CPU leaving idle",
	Schedule: "the scheduler switching the thread in",
	Return:   "the return to the waiter",
}

// componentParts are the components, each with its median's metric key
// and what it is.
func componentParts() []section.Part {
	out := make([]section.Part, len(Components))
	for i, c := range Components {
		out[i] = section.Part{Name: c, Metric: MedianKey(c), What: componentWhat[c]}
	}
	return out
}
