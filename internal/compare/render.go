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

// Screen is the lines the default page fits: the whole comparison (every
// row, in a table per experiment) when it fits, else the summary page (the
// floors that moved, what differs most with both raw figures, the counts
// per experiment, the notes) with the tables behind --wide.
const Screen = 60

func renderText(w io.Writer, r *Result, md bool, o RenderOptions) error {
	out, err := page(r, md, true, o)
	if err == nil && !md && !o.Wide && strings.Count(out, "\n") > Screen {
		out, err = page(r, md, false, o)
	}
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, out)
	return err
}

// page is the comparison in full (every row) or as its summary.
func page(r *Result, md, full bool, o RenderOptions) (string, error) {
	var buf strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&buf, format, a...) }
	li, hang := "  ", "      "
	if md {
		li, hang = "- ", "  "
	}
	item := func(s string) { p("%s\n", textfmt.Wrap(s, textfmt.Columns, li, hang)) }
	sub := func(s string) { p("%s\n", textfmt.Wrap(s, textfmt.Columns, "  "+li, "  "+hang)) }
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
		const cross = "different machine classes: raw times are not comparable; each verdict is on a figure's ratio to its floor in the same run (the C reference: latency's c-futex, selfwake's syscall, herd's pthread, lock's c-pthread), figures without one are shown, not judged (docs/gate.md)"
		if md {
			p("\n> [!WARNING]\n%s\n\n", textfmt.Wrap(cross, textfmt.Columns, "> ", "> "))
		} else {
			item("*** " + strings.ToUpper(cross[:27]) + cross[27:])
		}
	} else {
		item("new: " + r.Class)
		if r.Options.Floors {
			item("judged as ratios to each figure's floor in the same run (--floors), as across machine classes")
		}
	}
	// A floor that moved is named, with its factor, before any verdict
	// relative to it.
	shown := 6
	if full {
		shown = len(r.Floors)
	}
	for i, fl := range floorLines(r.Floors, r.Options.Threshold, shown, shortKeys(r.Rows)) {
		if i > 0 {
			sub(fl)
		} else {
			item(fl)
		}
	}
	// Warnings are footnotes, each printed once, referred to by number.
	notes := append(append(append([]string{}, r.Load...), r.Lacks...), r.Warnings...)
	summary := verdict.Tally(r.Count, []verdict.Verdict{verdict.Slower, verdict.Faster, verdict.NoChange}, []verdict.Verdict{verdict.NotCompared})
	if r.CrossMachine {
		// Two machine classes: the result speaks of the machines.
		summary = "two machine classes, compared as machines, not code (exit 0 whatever moved), as ratios to the floors: " + summary
		if cs := componentSummary(r.Components); cs != "" {
			summary = cs + "; " + summary
		}
	} else if r.Regressed() {
		summary = "REGRESSION: " + summary
		if md {
			summary = "**" + summary + "**"
		}
	}
	if len(notes) > 0 {
		summary += fmt.Sprintf(" (notes [1]-[%d] below)", len(notes))
		if len(notes) == 1 {
			summary = strings.Replace(summary, "[1]-[1]", "[1]", 1)
		}
	}
	item("result: " + summary)
	if !full {
		differs(item, sub, r)
		byExperiment(item, r)
	} else {
		rule := fmt.Sprintf("a change counts if it exceeds ±%g%% and stands out of the round-to-round noise: U test p < α=%g where the rounds allow it (%s), else rounds that do not overlap", 100*r.Options.Threshold, r.Options.Alpha, minPNote(r))
		item("rule: " + rule)
		item("cells: the median over the rounds ± half their range ((max − min) / 2) as a share of it, or the file's own mean (marked mean); ~: no significant change")
	}
	if len(r.Components) > 0 {
		item(partsTitle(r.Components[0].Experiment) + ":")
		for _, d := range r.Components {
			sub(d.Line())
		}
	}
	var dropped []string
	if full {
		p("\n")
		var err error
		if dropped, err = tables(&buf, r, md, o); err != nil {
			return "", err
		}
	}
	if len(dropped) > 0 {
		slices.Reverse(dropped)
		item("--wide adds " + strings.Join(dropped, ", ") + " (--format=json has everything)")
	}
	if full && len(r.OnlyBase) > 0 {
		item(fmt.Sprintf("only in the base (%d): %s", len(r.OnlyBase), foldKeys(r.OnlyBase)))
	}
	if full && len(r.OnlyNew) > 0 {
		item(fmt.Sprintf("only in the new file (%d): %s", len(r.OnlyNew), foldKeys(r.OnlyNew)))
	}
	for i, n := range notes {
		item(fmt.Sprintf("[%d] %s", i+1, n))
	}
	if !full {
		item(fmt.Sprintf("--wide: every figure (%d rows, %d only in one file), --format=markdown|json", len(r.Rows), len(r.OnlyBase)+len(r.OnlyNew)))
	}
	return buf.String(), nil
}

// minPNote says what the U test can reach with the rows' rounds.
func minPNote(r *Result) string {
	minP, tested := 1.0, false
	for _, row := range r.Rows {
		if row.Base.N >= 2 && row.New.N >= 2 {
			minP, tested = math.Min(minP, row.MinP), true
		}
	}
	if tested && minP >= r.Options.Alpha {
		return fmt.Sprintf("with these rounds the smallest possible p is %.2f, so the U test alone cannot show a change", minP)
	}
	return "benchstat's test"
}

// floorLines name the floors that moved, a line each with both raw
// figures and the factor ("selfwake syscall ns/pair: 195 ns → 988 ns,
// 5.07×"), the largest first, or say that none did; none when no row is
// judged against a floor.
func floorLines(fs []Floor, threshold float64, shown int, short func(exp, key string) string) []string {
	// The largest move of each experiment first, then the next largest.
	var mv []Floor
	for _, f := range fs {
		if f.Moved {
			mv = append(mv, f)
		}
	}
	size := func(f Floor) float64 { return math.Abs(math.Log(f.Factor)) }
	slices.SortStableFunc(mv, func(a, b Floor) int { return cmpFloat(size(b), size(a)) })
	first := map[string]bool{}
	var lead, rest []Floor
	for _, f := range mv {
		if !first[f.Experiment] {
			first[f.Experiment] = true
			lead = append(lead, f)
		} else {
			rest = append(rest, f)
		}
	}
	switch {
	case len(fs) == 0:
		return nil
	case len(mv) == 0:
		return []string{fmt.Sprintf("floors: none of the %d moved by more than ±%g%%", len(fs), 100*threshold)}
	}
	out := []string{fmt.Sprintf("floors that moved, %d of %d (the verdicts below are relative to them):", len(mv), len(fs))}
	for _, f := range append(lead, rest...)[:min(shown, len(mv))] {
		out = append(out, fmt.Sprintf("%s %s %s: %s → %s, %s", f.Experiment, short(f.Experiment, f.Config), f.Label,
			unitOf(f.Unit)(f.Base), unitOf(f.Unit)(f.New), multUnit(f.Factor)))
	}
	if len(mv) > shown {
		out[len(out)-1] += fmt.Sprintf("; and %d more (--wide)", len(mv)-shown)
	}
	return out
}

// differs lists the figures that differ most (faster or slower), both raw
// figures first, then, across classes, the ratios to the floor the verdict
// is on.
func differs(item, sub func(string), r *Result) {
	const shown = 10
	var rows []Row
	for _, row := range r.Rows {
		if row.Verdict == verdict.Slower || row.Verdict == verdict.Faster {
			rows = append(rows, row)
		}
	}
	switch {
	case len(rows) == 0 && r.Count(verdict.NotCompared) == len(r.Rows):
		item("nothing could be judged: the notes say what the files lack")
		return
	case len(rows) == 0:
		item(fmt.Sprintf("nothing differs beyond ±%g%% and the rounds' noise", 100*r.Options.Threshold))
		return
	}
	judged := func(row Row) float64 {
		if row.NormBy != "" {
			return row.NormRatio
		}
		return row.Ratio
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		return cmpFloat(math.Abs(math.Log(judged(b))), math.Abs(math.Log(judged(a))))
	})
	head := "differs most (base → new)"
	if len(rows) > shown {
		head = fmt.Sprintf("differs most, %d of %d (base → new)", shown, len(rows))
	}
	item(head + ":")
	short := shortKeys(r.Rows)
	for _, row := range rows[:min(shown, len(rows))] {
		u := unitOf(row.Unit)
		s := fmt.Sprintf("%s %s %s: %s → %s (%s)", row.Experiment, short(row.Experiment, row.Config), row.Label, u(row.Base.Figure()), u(row.New.Figure()), change(row.Ratio))
		if row.NormBy != "" {
			s += fmt.Sprintf("; ÷ %s %s → %s (%s)", short(row.Experiment, row.NormBy), multUnit(row.NormBase.Median), multUnit(row.NormNew.Median), change(row.NormRatio))
		}
		sub(s + " " + row.Verdict.Cell(false))
	}
}

// shortKeys shortens a configuration key by what every row of its
// experiment shares (textfmt.ShortKeys), for the lines that name one.
func shortKeys(rows []Row) func(exp, key string) string {
	keys := map[string][]string{}
	for _, r := range rows {
		if !slices.Contains(keys[r.Experiment], r.Config) {
			keys[r.Experiment] = append(keys[r.Experiment], r.Config)
		}
	}
	short := map[string]string{}
	for e, ks := range keys {
		s, _ := textfmt.ShortKeys(ks)
		for i, k := range ks {
			short[e+" "+k] = s[i]
		}
	}
	return func(exp, key string) string {
		if s, ok := short[exp+" "+key]; ok {
			return s
		}
		return key
	}
}

// byExperiment is a line per experiment: its verdicts' counts.
func byExperiment(item func(string), r *Result) {
	var exps []string
	for _, row := range r.Rows {
		if !slices.Contains(exps, row.Experiment) {
			exps = append(exps, row.Experiment)
		}
	}
	var parts []string
	for _, e := range exps {
		count := func(v verdict.Verdict) int {
			return verdict.Count(r.Rows, v, func(row Row) verdict.Verdict {
				if row.Experiment != e {
					return ""
				}
				return row.Verdict
			})
		}
		parts = append(parts, e+" "+verdict.Tally(count, []verdict.Verdict{verdict.Slower, verdict.Faster}, []verdict.Verdict{verdict.NoChange, verdict.NotCompared}))
	}
	item("by experiment: " + strings.Join(parts, "; "))
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// change is a ratio as a change in percent ("+23%"), as a factor beyond
// ten times either way ("5041×", "0.0086×"), "-" when it is none.
func change(r float64) string {
	switch {
	case math.IsInf(r, 0) || math.IsNaN(r):
		return "-"
	case r >= 10 || r <= 0.1:
		return multUnit(r)
	}
	return fmt.Sprintf("%+.0f%%", 100*(r-1))
}

// tables writes one table per experiment, its keys shortened by what every
// row of it shares, and returns the columns dropped to fit.
func tables(buf *strings.Builder, r *Result, md bool, o RenderOptions) (dropped []string, err error) {
	p := func(format string, a ...any) { fmt.Fprintf(buf, format, a...) }
	var exps []string
	byExp := map[string][]Row{}
	for _, row := range r.Rows {
		if _, ok := byExp[row.Experiment]; !ok {
			exps = append(exps, row.Experiment)
		}
		byExp[row.Experiment] = append(byExp[row.Experiment], row)
	}
	floors := r.CrossMachine || r.Options.Floors
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
		// benchstat's shape: each side "median ± spread", then the change
		// ("~" when nothing significant changed).
		t := textfmt.Table{Header: []string{"config", "metric", "base", "new", "vs base"}, Priority: []int{0, 0, 2, 2, 1}}
		if floors {
			// Across machines the verdict is on the floor ratios.
			t.Header = append(t.Header, "base/floor", "new/floor", "floor vs base")
			t.Priority = append(t.Priority, 1, 1, 0)
			t.Priority[4] = 2
		}
		t.Header = append(t.Header, "p", "verdict", "why")
		t.Priority = append(t.Priority, 2, 0, 3)
		for i, row := range rows {
			u := unitOf(row.Unit)
			rc := verdict.Delta(row.Verdict, row.Ratio-1)
			if floors || row.Verdict == verdict.NotCompared {
				rc = change(row.Ratio) // raw: not what is judged
			}
			if row.Base.N == 0 || row.New.N == 0 {
				rc = "-"
			}
			cells := []string{short[i], row.Label, statCell(row.Base, u), statCell(row.New, u), rc}
			if floors {
				if row.NormBase != nil {
					cells = append(cells, statCell(*row.NormBase, multUnit), statCell(*row.NormNew, multUnit), verdict.Delta(row.Verdict, row.NormRatio-1))
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
		d, err := t.Render(buf, md, limit)
		if err != nil {
			return nil, err
		}
		for _, h := range d {
			if !slices.Contains(dropped, h) {
				dropped = append(dropped, h)
			}
		}
		p("\n")
	}
	return dropped, nil
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

type unitFunc func(float64) string

// timeUnit formats nanoseconds in ns, µs or ms.
func timeUnit(ns float64) string {
	switch a := math.Abs(ns); {
	case a < 10 && ns != math.Trunc(ns):
		return fmt.Sprintf("%.1f ns", ns)
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
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f×", x)
	case x < 0.01:
		return fmt.Sprintf("%.2g×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}

// unitOf is the formatter of a figure in unit.
func unitOf(unit string) unitFunc {
	if unit == results.UnitMicros || unit == results.UnitNanos {
		return timeUnit
	}
	return plainUnit
}

// statCell is benchstat's cell, "median ± spread": the spread is half the
// rounds' range, (max - min) / 2, as a percentage of the median: symmetric,
// and named in the legend (benchstat's ± is a confidence interval; this is
// the plain range, all that three rounds can give). A figure the file holds
// as the rounds' mean (Stat.File) is shown as it, marked "mean".
func statCell(s Stat, u unitFunc) string {
	if s.N == 0 {
		return "-"
	}
	c := u(s.Median)
	if s.File != nil {
		c = u(*s.File) + " mean"
	}
	if s.N > 1 && s.Figure() != 0 {
		c += fmt.Sprintf(" ± %.0f%%", 100*(s.Max-s.Min)/2/math.Abs(s.Figure()))
	}
	return c
}
