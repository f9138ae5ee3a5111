package report

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/plot"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// page writes the text formats (table, markdown): prose wrapped at
// textfmt.Columns with a hanging indent, and tables that fit the same width
// unless the view is wide. The first write error sticks.
type page struct {
	w    io.Writer
	md   bool
	wide bool
	err  error
}

func (p *page) write(s string) {
	if p.err == nil {
		_, p.err = io.WriteString(p.w, s)
	}
}

func (p *page) blank() { p.write("\n") }

// heading is a section title: "## t" in markdown, the bare title in a
// table.
func (p *page) heading(level int, t string) {
	if p.md {
		p.write(strings.Repeat("#", level) + " " + t + "\n\n")
		return
	}
	p.write(t + "\n")
}

// item is one line of a list ("  label: text", "- label: text"),
// wrapped with its continuation lines indented under the text.
func (p *page) item(text string) { p.wrapped(0, text) }

// sub is an item under the previous one.
func (p *page) sub(text string) { p.wrapped(1, text) }

func (p *page) wrapped(depth int, text string) {
	first, rest := "  "+strings.Repeat("  ", depth), "      "+strings.Repeat("  ", depth)
	if p.md {
		first, rest = strings.Repeat("  ", depth)+"- ", strings.Repeat("  ", depth)+"  "
	}
	p.write(textfmt.Wrap(text, textfmt.Columns, first, rest) + "\n")
}

// table writes t, as narrow as Columns unless the view is wide, and
// returns the headers of the columns it left out.
func (p *page) table(t textfmt.Table) []string {
	if p.err != nil {
		return nil
	}
	// Markdown is read in a browser, which scrolls a wide table: only
	// the terminal's table is cut to fit.
	limit := textfmt.Columns
	if p.wide || p.md {
		limit = 0
	}
	dropped, err := t.Render(p.w, p.md, limit)
	if err != nil {
		p.err = err
	}
	if p.md {
		p.blank() // a markdown table ends at a blank line
	}
	return dropped
}

func renderText(w io.Writer, n Named, md bool, o Options) error {
	f := n.File
	p := &page{w: w, md: md, wide: o.Wide}
	if o.Summary {
		renderSummaryTo(p, f)
		return p.err
	}
	title := "parkbench result"
	if n.Name != "" {
		title += " " + n.Name
	}
	p.heading(2, title)
	p.item("machine: " + MachineSummary(f.Machine))
	p.item(fmt.Sprintf("started: %s, %s", f.Started.UTC().Format("2006-01-02 15:04:05 UTC"), toolSummary(f.Tool)))
	if len(f.Command) > 0 {
		p.item("command: " + strings.Join(f.Command, " "))
	}
	p.blank()
	renderSummaryTo(p, f)
	for _, e := range f.Experiments {
		renderExperiment(p, e, o)
	}
	for _, wn := range f.Warnings {
		p.item("warning: " + wn)
	}
	return p.err
}

func claimMark(v string, md bool) string {
	switch v {
	case results.Holds:
		if md {
			return "✅ holds"
		}
		return "HOLDS"
	case results.DoesNotHold:
		if md {
			return "❌ **does not hold**"
		}
		return "DOES NOT HOLD"
	}
	if md {
		return "➖ not evaluated"
	}
	return "NOT EVALUATED"
}

// Reason is a claim's reason in a line or two: its Why (one line with the
// figure, written when it does not hold) or, for a claim without one, its
// evidence, cut after the last "; " that keeps it under about two lines.
func Reason(c results.Claim) string {
	if c.Why != "" {
		return c.Why
	}
	ev := c.Evidence
	const most = 200
	if len(ev) <= most {
		return ev
	}
	if i := strings.LastIndex(ev[:most], "; "); i > 40 {
		return ev[:i] + "; … (--verbose: all of it)"
	}
	return strings.TrimRight(ev[:most], " ") + "… (--verbose: all of it)"
}

// keyShortener shortens an experiment's configuration keys by the
// segments every configuration shares (textfmt.ShortKeys); common lists
// those.
type keyShortener struct {
	short  map[string]string
	common []string
}

func shortener(e *results.Experiment) keyShortener {
	keys := make([]string, len(e.Configs))
	for i, c := range e.Configs {
		keys[i] = c.Key
	}
	short, common := textfmt.ShortKeys(keys)
	m := make(map[string]string, len(keys))
	for i, k := range keys {
		m[k] = short[i]
	}
	return keyShortener{m, common}
}

func (s keyShortener) key(k string) string {
	if v, ok := s.short[k]; ok {
		return v
	}
	return k
}

func renderExperiment(p *page, e *results.Experiment, o Options) {
	if p.md {
		p.heading(3, e.Name)
	} else {
		p.heading(0, e.Name)
	}
	p.item("runtime: " + RuntimeSummary(e.Runtime))
	if len(e.Options) > 0 && o.Verbose {
		p.item("options: " + sortedPairs(e.Options))
	}
	ks := shortener(e)
	if specs, ok := e.Specs(); ok && len(specs) == 0 {
		// A described experiment without figures (stacks): each
		// configuration's Detail is a block.
		p.blank()
		renderStacks(p, e)
	} else {
		if s := tablePreface(e, ks); s != "" {
			p.item(s)
		}
		p.blank()
		renderConfigTable(p, e, o, ks)
	}
	p.blank()
	for _, c := range e.Claims {
		p.item(fmt.Sprintf("claim %s: %s: %s", c.ID, claimMark(c.Verdict, p.md), c.Statement))
		switch {
		case o.Verbose:
			if c.Why != "" {
				p.sub("why: " + c.Why)
			}
			if c.Evidence != "" {
				p.sub("evidence: " + c.Evidence)
			}
		case c.Verdict != results.Holds:
			if r := Reason(c); r != "" {
				p.sub("why: " + r)
			}
		}
	}
	for _, n := range e.Notes {
		p.item("note: " + n)
	}
	for _, wn := range e.Warnings {
		p.item("warning: " + wn)
	}
	for _, g := range groupWarnings(e.Configs) {
		if len(g.keys) == 1 {
			p.item(fmt.Sprintf("warning: %s: %s", ks.key(g.keys[0]), g.first))
			continue
		}
		p.item(fmt.Sprintf("warning (%d configurations, e.g. %s): %s", len(g.keys), ks.key(g.keys[0]), g.first))
	}
	p.blank()
}

// tablePreface says what every row of the table shares: the rounds its
// figures are the median of, and the parts of the key left out of the
// rows.
func tablePreface(e *results.Experiment, ks keyShortener) string {
	var parts []string
	switch n, same := sameRounds(e); {
	case same && n == 1:
		parts = append(parts, "figures: one round")
	case same && n > 1:
		parts = append(parts, fmt.Sprintf("figures: medians over %d rounds", n))
	}
	if len(ks.common) > 0 {
		parts = append(parts, "every row: "+strings.Join(ks.common, "/"))
	}
	return strings.Join(parts, "; ")
}

// sameRounds is the number of rounds of every configuration, if they all
// have the same.
func sameRounds(e *results.Experiment) (int, bool) {
	if len(e.Configs) == 0 {
		return 0, false
	}
	n := len(e.Configs[0].Rounds)
	for _, c := range e.Configs[1:] {
		if len(c.Rounds) != n {
			return 0, false
		}
	}
	return n, true
}

// warningGroup is the configurations whose warnings differ only in their
// figures ("other processes used 7% of the CPU" / "... 12% ...").
type warningGroup struct {
	first string   // the first configuration's text
	keys  []string // the configurations, in order
}

var figures = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

// groupWarnings groups the configurations' warnings by their text with the
// figures taken out, in order of first appearance.
func groupWarnings(cfgs []*results.Config) []*warningGroup {
	var out []*warningGroup
	by := map[string]*warningGroup{}
	for _, c := range cfgs {
		for _, wn := range c.Warnings {
			k := figures.ReplaceAllString(wn, "#")
			g, ok := by[k]
			if !ok {
				g = &warningGroup{first: wn}
				by[k] = g
				out = append(out, g)
			}
			g.keys = append(g.keys, c.Key)
		}
	}
	return out
}

// renderSummary opens a file's text: per experiment, how many claims hold,
// and the spread of its headline figure (the median, or ns per pair) with
// the implementations at either end.
func renderSummary(w io.Writer, f *results.File, md bool) {
	renderSummaryTo(&page{w: w, md: md}, f)
}

func renderSummaryTo(p *page, f *results.File) {
	if len(f.Experiments) == 0 {
		return
	}
	p.write("summary\n")
	for _, line := range SummaryLines(f) {
		p.item(line.Text)
		for _, s := range line.Sub {
			p.sub(s)
		}
	}
	p.blank()
}

// SummaryLine is one experiment's line of a summary and the claims that do
// not hold, each with its reason.
type SummaryLine struct {
	Experiment string
	Text       string
	Sub        []string
}

// SummaryLines is the summary of f: per experiment, its configurations,
// the tally of its claims and the spread of its main figure, and under it
// each claim that does not hold with the reason.
func SummaryLines(f *results.File) []SummaryLine {
	var out []SummaryLine
	for _, e := range f.Experiments {
		tally := map[string]int{}
		for _, c := range e.Claims {
			tally[c.Verdict]++
		}
		line := fmt.Sprintf("%s: %d configuration%s", e.Name, len(e.Configs), plural(len(e.Configs)))
		if len(e.Claims) > 0 {
			line += fmt.Sprintf("; claims: %d hold, %d do not, %d not evaluated",
				tally[results.Holds], tally[results.DoesNotHold], tally[results.NotEvaluated])
		}
		if h := headline(e, shortener(e)); h != "" {
			line += "; " + h
		}
		sl := SummaryLine{Experiment: e.Name, Text: line}
		for _, c := range e.Claims {
			if c.Verdict == results.DoesNotHold {
				s := "does not hold: " + c.ID
				if r := Reason(c); r != "" {
					s += ": " + r
				}
				sl.Sub = append(sl.Sub, s)
			}
		}
		out = append(out, sl)
	}
	return out
}

// headline is the spread of an experiment's main figure (the metric
// description's Main; the median when there is no description): "median
// 0.3 µs (c-spin) .. 91.5 µs (chan)".
func headline(e *results.Experiment, ks keyShortener) string {
	col := Column{Header: "median", Metric: results.MMedian, Unit: "us"}
	if specs, ok := e.Specs(); ok {
		col.Metric = ""
		for _, m := range specs {
			if m.Main {
				col = Column{Header: m.Header, Metric: m.Key, Unit: m.Unit}
				break
			}
		}
		if col.Metric == "" {
			return ""
		}
	}
	var lo, hi *results.Config
	for _, c := range e.Configs {
		v, ok := c.Summary[col.Metric]
		if !ok {
			continue
		}
		if lo == nil || v < lo.Summary[col.Metric] {
			lo = c
		}
		if hi == nil || v > hi.Summary[col.Metric] {
			hi = c
		}
	}
	if lo == nil {
		return ""
	}
	u := unitLabel(col.Unit)
	if u != "" {
		u = " " + u
	}
	return fmt.Sprintf("%s %s%s (%s) .. %s%s (%s)", col.Header,
		FormatValue(lo.Summary[col.Metric], col.Unit), u, ks.key(lo.Key), FormatValue(hi.Summary[col.Metric], col.Unit), u, ks.key(hi.Key))
}

// Priorities of a table's columns (textfmt.Table.Priority): the row label
// and the main figure always stay; the judged and headline figures go
// last; the rest from the right.
const (
	keepColumn   = 0
	judgedColumn = 1
	otherColumn  = 2
	roundsColumn = 3
)

// ConfigTable is an experiment's table of configurations: one row per
// configuration (its key shortened by ks), one column per figure of its
// description (Diagnostic ones, the details, the probes and the foreign
// CPU only when wide), the rounds when they differ between rows.
// legend explains the cells shown as "—" (a figure's documented "none").
func ConfigTable(e *results.Experiment, o Options, ks keyShortener) (t textfmt.Table, hiddenDiag []string, legend []string) {
	cols := Columns(e)
	if !o.Wide {
		for _, c := range cols {
			if c.Diagnostic {
				hiddenDiag = append(hiddenDiag, c.Header)
			}
		}
		cols = slices.DeleteFunc(cols, func(c Column) bool { return c.Diagnostic })
	}
	specs, _ := e.Specs()
	prio := func(c Column) int {
		for _, m := range specs {
			if m.Key != c.Metric {
				continue
			}
			switch {
			case m.Main:
				return keepColumn
			case m.Judged || m.Headline:
				return judgedColumn
			}
		}
		return otherColumn
	}
	t.Header = []string{"config"}
	t.Priority = []int{keepColumn}
	for _, c := range cols {
		h := c.Header
		if c.Unit != "" {
			h += " (" + unitLabel(c.Unit) + ")"
		}
		t.Header = append(t.Header, h)
		t.Priority = append(t.Priority, prio(c))
	}
	var detailKeys []string
	if o.Wide {
		detailKeys = detailKeysOf(e)
	}
	for _, k := range detailKeys {
		t.Header = append(t.Header, k)
		t.Priority = append(t.Priority, otherColumn)
	}
	_, sameR := sameRounds(e)
	showRounds := o.Wide || !sameR
	if showRounds {
		t.Header = append(t.Header, "rounds")
		t.Priority = append(t.Priority, roundsColumn)
	}
	if o.Wide {
		t.Header = append(t.Header, "spin probe (ns)", "syscall probe (ns)", "foreign CPU")
		t.Priority = append(t.Priority, otherColumn, otherColumn, otherColumn)
	}
	meanings := map[string]string{}
	var legendOrder []string
	for _, c := range e.Configs {
		row := []string{ks.key(c.Key)}
		for _, col := range cols {
			v, ok := c.Summary[col.Metric]
			if !ok {
				row = append(row, "-")
				continue
			}
			if m, none := results.Sentinel(col.Metric, v); none {
				row = append(row, "—")
				if _, seen := meanings[col.Header]; !seen {
					legendOrder = append(legendOrder, col.Header)
				}
				meanings[col.Header] = m
				continue
			}
			row = append(row, FormatValue(v, col.Unit))
		}
		for _, k := range detailKeys {
			v := c.Detail[k]
			if v == "" {
				v = "-"
			}
			row = append(row, v)
		}
		if showRounds {
			row = append(row, strconv.Itoa(len(c.Rounds)))
		}
		if o.Wide {
			if c.Probe != nil {
				row = append(row, probeCell(c.Probe.SpinOneWayNs), probeCell(c.Probe.SyscallNs))
			} else {
				row = append(row, "-", "-")
			}
			row = append(row, foreignCell(c.Foreign))
		}
		t.Rows = append(t.Rows, row)
	}
	for _, h := range legendOrder {
		legend = append(legend, fmt.Sprintf("— (%s): %s", h, meanings[h]))
	}
	return t, hiddenDiag, legend
}

// renderConfigTable is the table of an experiment's configurations, what
// it left out, its legend, and its pivots.
func renderConfigTable(p *page, e *results.Experiment, o Options, ks keyShortener) {
	t, diag, legend := ConfigTable(e, o, ks)
	dropped := p.table(t)
	if more := wideNote(dropped, diag); more != "" {
		p.item(more)
	}
	for _, l := range legend {
		p.item(l)
	}
	renderPivots(p, e)
}

// wideNote names what --wide would add to a table.
func wideNote(dropped, diag []string) string {
	if len(dropped) == 0 && len(diag) == 0 {
		return ""
	}
	slices.Reverse(dropped) // the table's order
	var parts []string
	if len(dropped) > 0 {
		parts = append(parts, strings.Join(dropped, ", "))
	}
	switch len(diag) {
	case 0:
	case 1:
		parts = append(parts, "the diagnostic column "+diag[0])
	default:
		parts = append(parts, fmt.Sprintf("%d diagnostic columns (%s)", len(diag), strings.Join(diag, ", ")))
	}
	return "--wide adds " + strings.Join(parts, "; ")
}

// stacksDetailOrder is the display order of the stacks experiment's Detail
// keys (stacks.DetailKeys); "what" goes in the heading.
var stacksDetailOrder = []string{"tid", "state", "wchan", "syscall", "futex_op", "futex_addr", "futex_val", "futex_timeout",
	"matches", "memory", "kernel_stack", "goroutine", "goroutine_wait", "go_stack", "threads", "summary", "goroutines"}

// renderStacks prints each configuration's Detail as an aligned block;
// multi-line values continue under their first line, long ones wrap there.
func renderStacks(p *page, e *results.Experiment) {
	for _, c := range e.Configs {
		head := c.Key
		if c.Kind != "" {
			head += " (" + c.Kind + ")"
		}
		if what := c.Detail["what"]; what != "" {
			head += ": " + what
		}
		if p.md {
			p.write("#### " + head + "\n\n```text\n")
		} else {
			p.write(textfmt.Wrap(head, textfmt.Columns, "", "    ") + "\n")
		}
		var keys []string
		for _, k := range stacksDetailOrder {
			if _, ok := c.Detail[k]; ok {
				keys = append(keys, k)
			}
		}
		var rest []string
		for k := range c.Detail {
			if k != "what" && !slices.Contains(stacksDetailOrder, k) {
				rest = append(rest, k)
			}
		}
		sort.Strings(rest)
		keys = append(keys, rest...)
		width := 0
		for _, k := range keys {
			width = max(width, len(k))
		}
		hang := strings.Repeat(" ", 4+width+2)
		for _, k := range keys {
			first := fmt.Sprintf("    %-*s  ", width, k)
			p.write(textfmt.Wrap(c.Detail[k], textfmt.Columns, first, hang) + "\n")
		}
		if p.md {
			p.write("```\n")
		}
		p.blank()
	}
}

func detailKeysOf(e *results.Experiment) []string {
	seen := map[string]bool{}
	var keys []string
	for _, c := range e.Configs {
		for k := range c.Detail {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}

func probeCell(v float64) string {
	if v <= 0 {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func foreignCell(f *results.Foreign) string {
	if f == nil {
		return "-"
	}
	s := "n/a"
	if f.Fraction >= 0 {
		s = fmt.Sprintf("%.1f%%", 100*f.Fraction)
	}
	if f.SameCPUFraction >= 0 {
		s += fmt.Sprintf(" (same CPU %.0f%%)", 100*f.SameCPUFraction)
	}
	return s
}

// Pivot is a figure by a parameter (herd's times by N): Title, and a table
// with one row per parameter value and one column per configuration group,
// so the growth reads down a column; transposed (a row per group) when
// that is the narrower.
type Pivot struct {
	Title string
	Table textfmt.Table
	// Flipped tables have a row per group.
	Flipped bool
}

// Pivots are the pivot tables an experiment's description asks for;
// none when the parameter takes fewer than two values.
func Pivots(e *results.Experiment) []Pivot {
	specs, _ := e.Specs()
	var out []Pivot
	for _, m := range specs {
		if m.Pivot == nil {
			continue
		}
		groups := plot.ParamGroups(e, m.Pivot.Param)
		seen := map[int]bool{}
		var ns []int
		for _, g := range groups {
			for n := range g.ByValue {
				if !seen[n] {
					seen[n] = true
					ns = append(ns, n)
				}
			}
		}
		if len(ns) < 2 || len(groups) == 0 {
			continue
		}
		sort.Ints(ns)
		unit := ""
		if m.Unit != "" {
			unit = " (" + unitLabel(m.Unit) + ")"
		}
		param := strings.ToUpper(m.Pivot.Param)
		cell := func(g plot.ParamGroup, n int) string {
			if c := g.ByValue[n]; c != nil {
				if v, ok := c.Summary[m.Key]; ok {
					return FormatValue(v, m.Unit)
				}
			}
			return "-"
		}
		pv := Pivot{Title: fmt.Sprintf("%s%s by %s", m.Pivot.Title, unit, param)}
		// By N (one column per group), unless that does not fit and a
		// row per group does.
		pv.Table.Header = []string{param}
		for _, g := range groups {
			pv.Table.Header = append(pv.Table.Header, g.Label)
		}
		for _, n := range ns {
			row := []string{strconv.Itoa(n)}
			for _, g := range groups {
				row = append(row, cell(g, n))
			}
			pv.Table.Rows = append(pv.Table.Rows, row)
		}
		if tableWidth(pv.Table) > textfmt.Columns {
			pv.Flipped = true
			pv.Table = textfmt.Table{Header: []string{""}}
			for _, n := range ns {
				pv.Table.Header = append(pv.Table.Header, param+"="+strconv.Itoa(n))
			}
			for _, g := range groups {
				row := []string{g.Label}
				for _, n := range ns {
					row = append(row, cell(g, n))
				}
				pv.Table.Rows = append(pv.Table.Rows, row)
			}
		}
		out = append(out, pv)
	}
	return out
}

// renderPivots writes the pivot tables of e.
func renderPivots(p *page, e *results.Experiment) {
	for _, pv := range Pivots(e) {
		p.blank()
		if p.md {
			p.write(pv.Title + ":\n\n")
		} else {
			p.write("  " + pv.Title + ":\n")
		}
		// Every column is a figure: a pivot is not cut to fit (a group
		// per column is at most N values + 2 wide, see Pivots).
		p.table(pv.Table)
	}
}

// tableWidth is the width of t as a box table.
func tableWidth(t textfmt.Table) int {
	var b strings.Builder
	if _, err := t.Render(&b, false, 0); err != nil {
		return 0
	}
	return textfmt.MaxWidth(strings.TrimRight(b.String(), "\n"))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
