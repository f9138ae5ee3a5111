package report

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// hasAnatomy reports whether any configuration of e carries a wake anatomy
// (parkbench latency --anatomy).
func hasAnatomy(e *results.Experiment) bool {
	for _, c := range e.Configs {
		if _, ok := c.Summary[anatomy.MSumMedian]; ok {
			return true
		}
		if _, ok := c.Summary[anatomy.MNoSleep]; ok {
			return true
		}
	}
	return false
}

// AnatomyTable is the anatomy of e's configurations: one row each, the
// components' medians, their sum against the measured median, the wakes
// by shape, and the probe effect.
func AnatomyTable(e *results.Experiment, ks keyShortener) textfmt.Table {
	t := textfmt.Table{
		Header:   []string{"config"},
		Priority: []int{keepColumn},
	}
	for _, c := range anatomy.Components {
		t.Header = append(t.Header, c)
		t.Priority = append(t.Priority, keepColumn)
	}
	// measured is the configuration table's median (the experiment's main
	// figure: the wake, over the same untraced rounds); traced is the
	// median of the traced waits that slept, which the components
	// decompose and the sum is held against (off).
	t.Header = append(t.Header, "sum (off)", "traced", "measured", "idle/busy", "flagged", "probe")
	t.Priority = append(t.Priority, keepColumn, judgedColumn, keepColumn, judgedColumn, otherColumn, keepColumn)
	main := mainKey(e)
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
		if _, ok := s[anatomy.MNoSleep]; !ok {
			continue
		}
		row := []string{ks.key(c.Key)}
		for _, comp := range anatomy.Components {
			row = append(row, us(s, anatomy.MedianKey(comp)))
		}
		sum := us(s, anatomy.MSumMedian)
		if off, ok := s[anatomy.MSumOff]; ok {
			sum += " (" + pct(off) + ")"
		}
		probe := "-"
		if v, ok := s[anatomy.MProbeEffect]; ok {
			probe = pct(v)
		}
		row = append(row, sum, us(s, anatomy.MMeasuredMedian), us(s, main),
			fmt.Sprintf("%d/%d", int(s[anatomy.MIdleWakes]), int(s[anatomy.MBusyWakes])),
			strconv.Itoa(int(s[anatomy.MFlagged])), probe)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// HerdTraceTable is herd --anatomy's count per configuration: the medians
// over repeats of the waiters that slept again after the notify, their
// sleeps, their runnable switch-outs, and the waiters traced / not placed.
func HerdTraceTable(e *results.Experiment, ks keyShortener) textfmt.Table {
	t := textfmt.Table{Header: []string{"config", "slept again", "resleeps", "yield/preempt", "traced", "flagged"},
		Priority: []int{keepColumn, keepColumn, keepColumn, otherColumn, otherColumn, otherColumn}}
	keys := []string{anatomy.MHerdSleptAgain, anatomy.MHerdResleeps, anatomy.MHerdRunnable, anatomy.MHerdTraced, anatomy.MHerdFlagged}
	for _, c := range e.Configs {
		if _, ok := c.Summary[anatomy.MHerdSleptAgain]; !ok {
			continue
		}
		row := []string{ks.key(c.Key)}
		for _, k := range keys {
			row = append(row, strconv.FormatFloat(c.Summary[k], 'f', -1, 64))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// renderAnatomy writes e's anatomy table, if it has one.
func renderAnatomy(p *page, e *results.Experiment, ks keyShortener) {
	if ht := HerdTraceTable(e, ks); len(ht.Rows) > 0 {
		p.blank()
		p.item("herd --anatomy, from the trace (sched_switch; docs/anatomy.md): per notify, median over repeats, the waiters " +
			"switched in after the notify that slept again before holding the mutex (slept again; resleeps: their sleeps), " +
			"their runnable switch-outs (yield or preemption), and the waiters traced / not placed by the trace")
		p.blank()
		p.table(ht)
	}
	if !hasAnatomy(e) {
		return
	}
	p.blank()
	p.item("anatomy of the traced wakes (docs/anatomy.md): component medians in µs; sum of the medians against the " +
		"median of the traced waits that slept (traced; off: how far); measured: the table's median, the untraced rounds'; idle/busy: wakes whose CPU was idle or ran another task " +
		"(busy: schedule is the run-queue wait); probe: traced rounds' median against the untraced rounds' (interleaved)")
	p.blank()
	p.table(AnatomyTable(e, ks))
}

// htmlBar is one configuration's stacked bar of component medians.
type htmlBar struct {
	Config, Label, Total string
	Parts                []htmlBarPart
	Legend               []htmlBarPart // every component, drawn or not
	sum                  float64
}

type htmlBarPart struct {
	Name, Class, Title string
	Style              template.CSS
	ns                 float64
}

// anatomyBars are e's stacked bars, their widths set by scaleBars.
func anatomyBars(e *results.Experiment, ks keyShortener) []htmlBar {
	var out []htmlBar
	for _, c := range e.Configs {
		s := c.Summary
		if _, ok := s[anatomy.MSumMedian]; !ok {
			continue
		}
		b := htmlBar{Config: ks.key(c.Key)}
		var label []string
		for _, comp := range anatomy.Components {
			v := s[anatomy.MedianKey(comp)]
			p := htmlBarPart{Name: comp, Class: "c-" + comp, ns: v, Title: fmt.Sprintf("%s %.1f µs", comp, v/1000)}
			b.Legend = append(b.Legend, p)
			label = append(label, p.Title)
			if v > 0 {
				b.Parts = append(b.Parts, p)
			}
			b.sum += v
		}
		b.Total = fmt.Sprintf("%.1f µs", b.sum/1000)
		b.Label = c.Key + ": " + strings.Join(label, ", ")
		out = append(out, b)
	}
	return out
}

// scaleBars sets every bar's part widths on one scale: the largest sum of
// any bar of the experiment, over every file (machine), is the full width.
func scaleBars(files []htmlFile) {
	top := 0.0
	for _, f := range files {
		for _, b := range f.Bars {
			top = max(top, b.sum)
		}
	}
	if top <= 0 {
		return
	}
	for _, f := range files {
		for i := range f.Bars {
			for j := range f.Bars[i].Parts {
				p := &f.Bars[i].Parts[j]
				p.Style = template.CSS(fmt.Sprintf("width: %.2f%%", 100*p.ns/top))
			}
		}
	}
}
