package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
	"github.com/parkbench/parkbench/internal/verdict"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "json"}

// Render writes the comparisons in format, each table narrow enough for a
// terminal.
func Render(w io.Writer, rs []*Result, format string) error {
	return RenderWith(w, rs, format, RenderOptions{})
}

// RenderWith writes the comparisons in format as o says.
func RenderWith(w io.Writer, rs []*Result, format string, o RenderOptions) error {
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
			if err := renderText(w, r, format == "markdown", o); err != nil {
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

// RenderOptions choose how much the text formats show.
type RenderOptions struct {
	// Wide keeps every column (the reason of each verdict); without it a
	// table drops columns, least needed first, until it fits
	// textfmt.Columns, and says which.
	Wide bool
}

func renderText(w io.Writer, r *Result, md bool, o RenderOptions) error {
	var buf strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&buf, format, a...) }
	li, hang := "  ", "      "
	if md {
		li, hang = "- ", "  "
	}
	item := func(s string) { p("%s\n", textfmt.Wrap(s, textfmt.Columns, li, hang)) }
	code := func(s string) string {
		if md {
			return "`" + s + "`"
		}
		return s
	}
	title := fmt.Sprintf("parkbench compare: %s vs %s", code(r.New), code(r.Base))
	if md {
		p("### %s\n\n", title)
	} else {
		p("%s\n", textfmt.Wrap(title, textfmt.Columns, "", "    "))
	}
	item("base: " + MachineLine(r.BaseMachine))
	if r.CrossMachine {
		item("new: " + MachineLine(r.NewMachine))
		const cross = "Different machine classes: raw times are not comparable. Verdicts use each figure as a ratio to its floor in the same run (latency: c-futex at the same placement; selfwake: the syscall row; herd: the C pthread herd; lock: c-pthread); figures without a floor are shown, not judged (docs/gate.md)."
		if md {
			p("\n> [!WARNING]\n%s\n\n", textfmt.Wrap(cross, textfmt.Columns, "> ", "> "))
		} else {
			p("\n%s\n\n", textfmt.Wrap("*** "+strings.ToUpper(cross[:27])+cross[27:], textfmt.Columns, "  ", "  *** "))
		}
	} else {
		item("new: " + r.Class)
		if r.Options.Floors {
			item("judged as ratios to each figure's floor in the same run (--floors), as across machine classes")
		}
	}
	for _, l := range r.Load {
		if md {
			p("\n> [!WARNING]\n%s\n\n", textfmt.Wrap(l, textfmt.Columns, "> ", "> "))
		} else {
			item("WARNING: " + l)
		}
	}
	// The smallest p the rows' rounds allow, over the rows with rounds
	// on both sides (the others are not judged on a test).
	minP, tested := 1.0, false
	for _, row := range r.Rows {
		if row.Base.N >= 2 && row.New.N >= 2 {
			minP, tested = math.Min(minP, row.MinP), true
		}
	}
	rule := fmt.Sprintf("a change counts if it exceeds ±%g%% and stands out of the round-to-round noise: U test p < α=%g where the rounds allow it, else rounds that do not overlap", 100*r.Options.Threshold, r.Options.Alpha)
	if tested && minP >= r.Options.Alpha {
		rule += fmt.Sprintf(" (with these rounds the smallest possible p is %.2f, so the U test alone cannot show a change)", minP)
	}
	item("rule: " + rule)
	item("cells: the median over the rounds ± half their range ((max − min) / 2), as a percentage of the median")
	if len(r.Components) > 0 {
		item(fmt.Sprintf("anatomy (latency --anatomy, component medians; a part moved when it changed by more than %g%% and 1 µs):", 100*r.Options.Threshold))
		for _, d := range r.Components {
			item("  " + d.Line(r.Options.Threshold))
		}
	}
	summary := verdict.Tally(r.Count, []verdict.Verdict{verdict.Slower, verdict.Faster, verdict.NoChange}, []verdict.Verdict{verdict.NotCompared})
	if r.CrossMachine {
		// Two machine classes: the result speaks of the machines.
		summary = "two machine classes, compared as machines, not code (exit 0 whatever moved): figures as ratios to their floors: " + summary
		if cs := componentSummary(r.Components); cs != "" {
			summary = cs + "; " + summary
		}
	} else if r.Regressed() {
		if md {
			summary = "**REGRESSION: " + summary + "**"
		} else {
			summary = "REGRESSION: " + summary
		}
	}
	for _, l := range r.Lacks {
		item(l)
	}
	item("result: " + summary)
	p("\n")

	// One table per experiment, its keys shortened by what every row of
	// it shares.
	var exps []string
	byExp := map[string][]Row{}
	for _, row := range r.Rows {
		if _, ok := byExp[row.Experiment]; !ok {
			exps = append(exps, row.Experiment)
		}
		byExp[row.Experiment] = append(byExp[row.Experiment], row)
	}
	var dropped []string
	for _, exp := range exps {
		rows := byExp[exp]
		keys := make([]string, len(rows))
		for i, row := range rows {
			keys[i] = row.Config
		}
		short, common := textfmt.ShortKeys(keys)
		head := exp
		if len(common) > 0 {
			head += " (every row: " + strings.Join(common, "/") + ")"
		}
		if md {
			p("#### %s\n\n", head)
		} else {
			p("%s\n", textfmt.Wrap(head, textfmt.Columns, "", "    "))
		}
		t := textfmt.Table{Header: []string{"config", "metric", "base", "new", "new/base"}, Priority: []int{0, 0, 2, 2, 1}}
		if r.CrossMachine || r.Options.Floors {
			// Across machines the verdict is on the floor ratios.
			t.Header = append(t.Header, "base/floor", "new/floor", "floor new/base")
			t.Priority = append(t.Priority, 1, 1, 0)
			t.Priority[4] = 2
		}
		t.Header = append(t.Header, "p", "verdict", "why")
		t.Priority = append(t.Priority, 2, 0, 3)
		for i, row := range rows {
			u := plainUnit
			if row.Unit == results.UnitMicros || row.Unit == results.UnitNanos {
				u = timeUnit
			}
			rc := ratioCell(row.Ratio)
			if row.Base.N == 0 || row.New.N == 0 {
				rc = "-"
			}
			cells := []string{short[i], row.Label, statCell(row.Base, u), statCell(row.New, u), rc}
			if r.CrossMachine || r.Options.Floors {
				if row.NormBase != nil {
					cells = append(cells, statCell(*row.NormBase, multUnit), statCell(*row.NormNew, multUnit), ratioCell(row.NormRatio))
				} else {
					cells = append(cells, "-", "-", "-")
				}
			}
			pcell := "-"
			if row.Base.N >= 2 && row.New.N >= 2 && row.Verdict != verdict.NotCompared {
				pcell = fmt.Sprintf("%.3f", row.P)
			}
			cells = append(cells, pcell, row.Verdict.Cell(md), escape(row.Reason, md))
			t.Rows = append(t.Rows, cells)
		}
		// Markdown is read in a browser, which scrolls a wide table:
		// only the terminal's table is cut to fit.
		limit := textfmt.Columns
		if o.Wide || md {
			limit = 0
		}
		d, err := t.Render(&buf, md, limit)
		if err != nil {
			return err
		}
		for _, h := range d {
			if !slices.Contains(dropped, h) {
				dropped = append(dropped, h)
			}
		}
		p("\n")
	}
	if len(dropped) > 0 {
		slices.Reverse(dropped)
		item("--wide adds " + strings.Join(dropped, ", ") + " (--format=json has everything)")
	}
	if len(r.OnlyBase) > 0 {
		item(fmt.Sprintf("only in the base (%d): %s", len(r.OnlyBase), foldKeys(r.OnlyBase)))
	}
	if len(r.OnlyNew) > 0 {
		item(fmt.Sprintf("only in the new file (%d): %s", len(r.OnlyNew), foldKeys(r.OnlyNew)))
	}
	for _, wn := range r.Warnings {
		item("warning: " + wn)
	}
	_, err := io.WriteString(w, buf.String())
	return err
}

// foldKeys lists "experiment config" keys in a line or two: per
// experiment, how many, the parts they share, and the first few.
func foldKeys(keys []string) string {
	const shown = 6
	var exps []string
	by := map[string][]string{}
	for _, k := range keys {
		exp, cfg, _ := strings.Cut(k, " ")
		if _, ok := by[exp]; !ok {
			exps = append(exps, exp)
		}
		by[exp] = append(by[exp], cfg)
	}
	var parts []string
	for _, exp := range exps {
		cfgs := by[exp]
		short, common := textfmt.ShortKeys(cfgs)
		s := fmt.Sprintf("%s %d", exp, len(cfgs))
		if len(common) > 0 {
			s += " (all " + strings.Join(common, "/") + ")"
		}
		list := short
		if len(list) > shown {
			list = append(list[:shown:shown], fmt.Sprintf("and %d more", len(short)-shown))
		}
		parts = append(parts, s+": "+strings.Join(list, ", "))
	}
	return strings.Join(parts, "; ")
}

func escape(s string, md bool) string {
	if md {
		return strings.ReplaceAll(s, "|", `\|`)
	}
	return s
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

// statCell is "median ±spread": the spread is half the rounds' range,
// (max - min) / 2, as a percentage of the median: symmetric, and named in
// the table's legend (benchstat's ± is a confidence interval; this is the
// plain range, all that three rounds can give).
func statCell(s Stat, u unitFunc) string {
	if s.N == 0 {
		return "-"
	}
	c := u(s.Median)
	if s.N > 1 && s.Median != 0 {
		c += fmt.Sprintf(" ±%.0f%%", 100*(s.Max-s.Min)/2/math.Abs(s.Median))
	}
	return c
}
