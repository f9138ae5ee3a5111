package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/parkbench/parkbench/internal/results"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "json"}

// Render writes the comparisons in format.
func Render(w io.Writer, rs []*Result, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rs)
	case "table", "markdown":
		for i, r := range rs {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := renderText(w, r, format == "markdown"); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

// MachineLine describes a machine in one line.
func MachineLine(m results.Machine) string {
	s := m.Slug
	var d []string
	if m.CPUModel != "" {
		d = append(d, m.CPUModel)
	}
	d = append(d, fmt.Sprintf("%d CPUs", m.LogicalCPUs))
	if m.Kernel != "" {
		d = append(d, m.OS+" "+m.Kernel)
	}
	if m.Virtualization != "" && m.Virtualization != "none" {
		d = append(d, m.Virtualization)
	}
	return s + " (" + strings.Join(d, ", ") + ")"
}

func renderText(w io.Writer, r *Result, md bool) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	code := func(s string) string {
		if md {
			return "`" + s + "`"
		}
		return s
	}
	if md {
		p("### parkbench compare: %s vs %s\n\n", code(r.New), code(r.Base))
	} else {
		p("parkbench compare: %s vs %s\n", r.New, r.Base)
	}
	li := "  "
	if md {
		li = "- "
	}
	p("%sbase: %s\n", li, MachineLine(r.BaseMachine))
	if r.CrossMachine {
		p("%snew:  %s\n", li, MachineLine(r.NewMachine))
		if md {
			p("\n> [!WARNING]\n> **Different machine classes.** Raw times from two machines are not comparable: verdicts use each figure as a ratio to its floor in the same run (latency: c-futex at the same placement; selfwake: the syscall row; herd: the C pthread herd; lock: c-pthread); figures without a floor are shown but not judged (docs/gate.md).\n\n")
		} else {
			p("\n  *** DIFFERENT MACHINE CLASSES: raw times are not comparable. Verdicts use each\n  *** figure as a ratio to its floor in the same run (latency: c-futex at the same\n  *** placement; selfwake: syscall; herd: C pthread; lock: c-pthread); figures\n  *** without a floor are shown, not judged (docs/gate.md).\n\n")
		}
	} else {
		p("%snew:  %s\n", li, r.Class)
	}
	minP := 1.0
	for _, row := range r.Rows {
		minP = math.Min(minP, row.MinP)
	}
	rule := fmt.Sprintf("a change counts if it exceeds ±%g%% and stands out of the round-to-round noise: U test p < α=%g where the rounds allow it, else rounds that do not overlap", 100*r.Options.Threshold, r.Options.Alpha)
	if minP >= r.Options.Alpha {
		rule += fmt.Sprintf(" (with these rounds the smallest possible p is %.2f, so the U test alone cannot show a change)", minP)
	}
	p("%srule: %s\n", li, rule)
	slower, faster := r.Count(Slower), r.Count(Faster)
	summary := fmt.Sprintf("%d slower, %d faster, %d no change", slower, faster, r.Count(NoChange))
	if n := r.Count(NotComparable); n > 0 {
		summary += fmt.Sprintf(", %d not compared", n)
	}
	if slower > 0 {
		if md {
			summary = "**REGRESSION: " + summary + "**"
		} else {
			summary = "REGRESSION: " + summary
		}
	}
	p("%sresult: %s\n\n", li, summary)

	header := []any{"experiment", "config", "metric", "base", "new", "new/base"}
	if r.CrossMachine {
		header = append(header, "base/floor", "new/floor", "floor new/base")
	}
	header = append(header, "p", "verdict", "why")
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off)}
	if md {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	t := tablewriter.NewTable(w, opts...)
	t.Header(header...)
	for _, row := range r.Rows {
		u := plainUnit
		if row.Unit == results.UnitMicros || row.Unit == results.UnitNanos {
			u = timeUnit
		}
		cells := []any{row.Experiment, row.Config, row.Label, statCell(row.Base, u), statCell(row.New, u), ratioCell(row.Ratio)}
		if r.CrossMachine {
			if row.NormBase != nil {
				cells = append(cells, statCell(*row.NormBase, multUnit), statCell(*row.NormNew, multUnit), ratioCell(row.NormRatio))
			} else {
				cells = append(cells, "-", "-", "-")
			}
		}
		pcell := "-"
		if row.Base.N >= 2 && row.New.N >= 2 && row.Verdict != NotComparable {
			pcell = fmt.Sprintf("%.3f", row.P)
		}
		cells = append(cells, pcell, verdictCell(row.Verdict, md), escape(row.Reason, md))
		if err := t.Append(cells...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(r.OnlyBase) > 0 {
		p("%sonly in the base: %s\n", li, strings.Join(r.OnlyBase, ", "))
	}
	if len(r.OnlyNew) > 0 {
		p("%sonly in the new file: %s\n", li, strings.Join(r.OnlyNew, ", "))
	}
	for _, wn := range r.Warnings {
		p("%swarning: %s\n", li, wn)
	}
	return nil
}

func escape(s string, md bool) string {
	if md {
		return strings.ReplaceAll(s, "|", `\|`)
	}
	return s
}

func verdictCell(v string, md bool) string {
	switch v {
	case Slower:
		if md {
			return "**slower** ❌"
		}
		return "SLOWER"
	case Faster:
		if md {
			return "**faster** ✅"
		}
		return "faster"
	}
	return v
}

func ratioCell(r float64) string {
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r)
}

type unitFunc func(float64) string

// timeUnit formats nanoseconds in ns, µs or ms.
func timeUnit(ns float64) string {
	switch a := math.Abs(ns); {
	case a < 1000:
		return fmt.Sprintf("%.0f ns", ns)
	case a < 1e6:
		return fmt.Sprintf("%.1f µs", ns/1e3)
	default:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
}

// plainUnit formats a figure that is not a time (lock's Mops).
func plainUnit(x float64) string { return fmt.Sprintf("%.3g", x) }

// multUnit formats a multiple of a floor.
func multUnit(x float64) string {
	if x >= 100 {
		return fmt.Sprintf("%.0f×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}

// statCell is "median ±spread (n)": the spread is the largest distance from
// the median to the slowest or fastest round, as a percentage (benchstat's
// ± is a confidence interval; this is the plain range).
func statCell(s Stat, u unitFunc) string {
	if s.N == 0 {
		return "-"
	}
	c := u(s.Median)
	if s.N > 1 && s.Median != 0 {
		spread := math.Max(s.Max/s.Median-1, 1-s.Min/s.Median)
		c += fmt.Sprintf(" ±%.0f%%", 100*spread)
	}
	return c
}
