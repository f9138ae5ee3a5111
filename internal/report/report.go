// Package report renders result files for people and tools: a table or
// markdown per experiment (machine, runtime settings, options, figures with
// units, probes, foreign CPU, claims, warnings), CSV, the result JSON
// itself, and the Go benchmark format that benchstat reads.
package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/parkbench/parkbench/internal/results"
)

// Formats lists what Render accepts.
var Formats = []string{"table", "markdown", "csv", "json", "benchstat"}

// Named is a result file with the name it was read from.
type Named struct {
	Name string
	File *results.File
}

// Options select how much the text formats (table, markdown) show. The
// other formats always carry everything.
type Options struct {
	// Wide adds the probe and diagnostic columns (probes, foreign CPU,
	// per-configuration details) to the tables; without it a table fits
	// about 120 columns.
	Wide bool
	// Verbose adds each claim's evidence.
	Verbose bool
}

// Full is every column and every claim's evidence.
var Full = Options{Wide: true, Verbose: true}

// Render writes f in format.
func Render(w io.Writer, f *results.File, format string, o Options) error {
	return RenderFiles(w, []Named{{File: f}}, format, o)
}

// RenderFiles writes several files in format: one after the other for the
// text formats and benchstat, one CSV with a file column, and for json the
// file itself (one) or an array of files (several).
func RenderFiles(w io.Writer, files []Named, format string, o Options) error {
	switch format {
	case "json":
		if len(files) == 1 {
			data, err := results.Encode(files[0].File)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		fs := make([]*results.File, len(files))
		for i, n := range files {
			fs[i] = n.File
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(fs)
	case "table", "markdown":
		for i, n := range files {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := renderText(w, n, format == "markdown", o); err != nil {
				return err
			}
		}
		return nil
	case "csv":
		return renderCSV(w, files)
	case "benchstat":
		for i, n := range files {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if err := renderBenchstat(w, n.File); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

// Column is one column of an experiment's table: a summary metric.
type Column struct {
	Header string
	Metric string
	Unit   string // "us", "ns", "" (plain number)
	// Diagnostic columns are shown only with Options.Wide: they tell
	// whether a figure can be trusted (did the waits sleep, who switched)
	// rather than answer the question.
	Diagnostic bool
}

// Columns returns the table columns of an experiment: its metric
// description (results.Experiment.Specs) or, for an experiment without
// one, a column per summary metric any configuration has.
func Columns(e *results.Experiment) []Column {
	if specs, ok := e.Specs(); ok {
		cols := make([]Column, len(specs))
		for i, m := range specs {
			cols[i] = Column{m.Header, m.Key, m.Unit, m.Diagnostic}
		}
		return cols
	}
	seen := map[string]bool{}
	var cols []Column
	for _, c := range e.Configs {
		for k := range c.Summary {
			if !seen[k] {
				seen[k] = true
				unit := ""
				if strings.HasSuffix(k, "_ns") {
					unit = "us"
				}
				cols = append(cols, Column{Header: strings.TrimSuffix(k, "_ns"), Metric: k, Unit: unit})
			}
		}
	}
	sort.Slice(cols, func(i, j int) bool { return cols[i].Metric < cols[j].Metric })
	return cols
}

// FormatValue renders a metric value in a column's unit.
func FormatValue(v float64, unit string) string {
	switch unit {
	case "us":
		return strconv.FormatFloat(v/1000, 'f', 2, 64)
	case "ns":
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	if v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func unitLabel(u string) string {
	switch u {
	case "us":
		return "µs"
	}
	return u
}

// MachineSummary is the one-line description of where a file was measured.
func MachineSummary(m results.Machine) string {
	var d []string
	if m.CPUModel != "" {
		d = append(d, m.CPUModel)
	}
	d = append(d, fmt.Sprintf("%d logical CPUs", m.LogicalCPUs), m.OS+"/"+m.Arch)
	if m.Kernel != "" {
		d = append(d, "kernel "+m.Kernel)
	}
	if m.Virtualization != "" {
		d = append(d, "virtualization "+m.Virtualization)
	}
	if m.ClockSource != "" {
		d = append(d, "clock "+m.ClockSource)
	}
	if m.Governor != "" {
		d = append(d, "governor "+m.Governor)
	}
	switch {
	case m.FutexHash == "private":
		d = append(d, fmt.Sprintf("futex hash private (%d slots)", m.FutexHashSlots))
	case m.FutexHash != "":
		d = append(d, "futex hash "+m.FutexHash)
	}
	d = append(d, m.GoVersion, fmt.Sprintf("load %.2f %.2f %.2f", m.LoadAvg[0], m.LoadAvg[1], m.LoadAvg[2]))
	return m.Slug + ": " + strings.Join(d, ", ")
}

func toolSummary(t results.Tool) string {
	s := "parkbench " + t.Version
	if t.Commit != "" {
		c := t.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if t.Modified {
			c += ", modified"
		}
		s += " (" + c + ")"
	}
	return s + ", built with " + t.GoVersion
}

// RuntimeSummary describes the Go runtime settings of an experiment.
func RuntimeSummary(r results.Runtime) string {
	gc := fmt.Sprintf("GC %d%%", r.GCPercent)
	if r.GCPercent < 0 {
		gc = "GC off"
	}
	s := fmt.Sprintf("GOMAXPROCS %d, %s (%d GC cycles in measured windows)", r.GOMAXPROCS, gc, r.GCCycles)
	if r.LockOSThread {
		s += ", threads locked"
	}
	if r.SyscallMode != "" {
		s += ", syscall mode " + r.SyscallMode
	}
	s += fmt.Sprintf(", %s allocs/op", strconv.FormatFloat(r.AllocsPerOp, 'g', 3, 64))
	if r.CgoEnabled {
		s += ", cgo on"
	} else {
		s += ", cgo off"
	}
	if r.ThreadParker != "" {
		s += ", thread parker " + r.ThreadParker
	}
	return s
}

func sortedPairs(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString(k + "=" + m[k])
	}
	return b.String()
}

func newTable(w io.Writer, md bool) *tablewriter.Table {
	opts := []tablewriter.Option{tablewriter.WithHeaderAutoFormat(tw.Off)}
	if md {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	return tablewriter.NewTable(w, opts...)
}

func renderText(w io.Writer, n Named, md bool, o Options) error {
	f := n.File
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	li := "  "
	if md {
		li = "- "
	}
	title := "parkbench result"
	if n.Name != "" {
		title += " " + n.Name
	}
	if md {
		p("## %s\n\n", title)
	} else {
		p("%s\n", title)
	}
	p("%smachine: %s\n", li, MachineSummary(f.Machine))
	p("%sstarted: %s, %s\n", li, f.Started.UTC().Format("2006-01-02 15:04:05 UTC"), toolSummary(f.Tool))
	if len(f.Command) > 0 {
		p("%scommand: %s\n", li, strings.Join(f.Command, " "))
	}
	p("\n")
	renderSummary(w, f, md)
	for _, e := range f.Experiments {
		if err := renderExperiment(w, e, md, o); err != nil {
			return err
		}
	}
	for _, wn := range f.Warnings {
		p("%swarning: %s\n", li, wn)
	}
	return nil
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

func renderExperiment(w io.Writer, e *results.Experiment, md bool, o Options) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	li := "  "
	if md {
		li = "- "
		p("### %s\n\n", e.Name)
	} else {
		p("%s\n", e.Name)
	}
	p("%sruntime: %s\n", li, RuntimeSummary(e.Runtime))
	if len(e.Options) > 0 && o.Verbose {
		p("%soptions: %s\n", li, sortedPairs(e.Options))
	}
	p("\n")
	if specs, ok := e.Specs(); ok && len(specs) == 0 {
		// A described experiment without figures (stacks): each
		// configuration's Detail is a block.
		if err := renderStacks(w, e, md); err != nil {
			return err
		}
	} else if err := renderConfigTable(w, e, md, o); err != nil {
		return err
	}
	p("\n")
	for _, c := range e.Claims {
		ev := ""
		if c.Evidence != "" && o.Verbose {
			ev = " (" + c.Evidence + ")"
		}
		p("%sclaim %s: %s: %s%s\n", li, c.ID, claimMark(c.Verdict, md), c.Statement, ev)
	}
	for _, n := range e.Notes {
		p("%snote: %s\n", li, n)
	}
	for _, wn := range e.Warnings {
		p("%swarning: %s\n", li, wn)
	}
	for _, g := range groupWarnings(e.Configs) {
		if len(g.keys) == 1 {
			p("%swarning: %s: %s\n", li, g.keys[0], g.first)
			continue
		}
		p("%swarning (%d configurations, e.g. %s): %s\n", li, len(g.keys), g.keys[0], g.first)
	}
	p("\n")
	return nil
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
	li := "  "
	if md {
		li = "- "
	}
	if len(f.Experiments) == 0 {
		return
	}
	fmt.Fprintf(w, "summary\n")
	for _, e := range f.Experiments {
		tally := map[string]int{}
		for _, c := range e.Claims {
			tally[c.Verdict]++
		}
		line := fmt.Sprintf("%s%s: %d configurations", li, e.Name, len(e.Configs))
		if len(e.Claims) > 0 {
			line += fmt.Sprintf("; claims: %d hold, %d do not, %d not evaluated",
				tally[results.Holds], tally[results.DoesNotHold], tally[results.NotEvaluated])
		}
		if h := headline(e); h != "" {
			line += "; " + h
		}
		fmt.Fprintln(w, line)
		for _, c := range e.Claims {
			if c.Verdict == results.DoesNotHold {
				fmt.Fprintf(w, "%s  does not hold: %s\n", li, c.ID+whySuffix(c))
			}
		}
	}
	fmt.Fprintln(w)
}

// headline is the spread of an experiment's main figure (the metric
// description's Main; the median when there is no description): "median
// 0.3 µs (c-spin) .. 91.5 µs (chan)".
func headline(e *results.Experiment) string {
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
	return fmt.Sprintf("%s %s %s (%s) .. %s %s (%s)", col.Header,
		FormatValue(lo.Summary[col.Metric], col.Unit), u, lo.Key, FormatValue(hi.Summary[col.Metric], col.Unit), u, hi.Key)
}

// renderConfigTable is the table of an experiment's configurations.
func renderConfigTable(w io.Writer, e *results.Experiment, md bool, o Options) error {
	cols := Columns(e)
	if !o.Wide {
		cols = slices.DeleteFunc(cols, func(c Column) bool { return c.Diagnostic })
	}
	header := []any{"config"}
	for _, c := range cols {
		h := c.Header
		if c.Unit != "" {
			h += " (" + unitLabel(c.Unit) + ")"
		}
		header = append(header, h)
	}
	var detailKeys []string
	if o.Wide {
		detailKeys = detailKeysOf(e)
	}
	for _, k := range detailKeys {
		header = append(header, k)
	}
	header = append(header, "rounds")
	if o.Wide {
		header = append(header, "spin probe (ns)", "syscall probe (ns)", "foreign CPU")
	}
	t := newTable(w, md)
	t.Header(header...)
	for _, c := range e.Configs {
		row := []any{c.Key}
		for _, col := range cols {
			v, ok := c.Summary[col.Metric]
			if !ok {
				row = append(row, "-")
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
		row = append(row, strconv.Itoa(len(c.Rounds)))
		if o.Wide {
			if c.Probe != nil {
				row = append(row, probeCell(c.Probe.SpinOneWayNs), probeCell(c.Probe.SyscallNs))
			} else {
				row = append(row, "-", "-")
			}
			row = append(row, foreignCell(c.Foreign))
		}
		if err := t.Append(row...); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	return renderPivots(w, e, md)
}

// stacksDetailOrder is the display order of the stacks experiment's Detail
// keys (stacks.DetailKeys); "what" goes in the heading.
var stacksDetailOrder = []string{"tid", "state", "wchan", "syscall", "futex_op", "futex_addr", "futex_val", "futex_timeout",
	"matches", "memory", "kernel_stack", "goroutine", "goroutine_wait", "go_stack", "threads", "summary", "goroutines"}

// renderStacks prints each configuration's Detail as an aligned block;
// multi-line values continue under their first line.
func renderStacks(w io.Writer, e *results.Experiment, md bool) error {
	for _, c := range e.Configs {
		head := c.Key
		if c.Kind != "" {
			head += " (" + c.Kind + ")"
		}
		if what := c.Detail["what"]; what != "" {
			head += ": " + what
		}
		if md {
			fmt.Fprintf(w, "#### %s\n\n```text\n", head)
		} else {
			fmt.Fprintf(w, "%s\n", head)
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
		for _, k := range keys {
			lines := strings.Split(c.Detail[k], "\n")
			fmt.Fprintf(w, "    %-*s  %s\n", width, k, lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(w, "    %-*s  %s\n", width, "", l)
			}
		}
		if md {
			fmt.Fprint(w, "```\n")
		}
		fmt.Fprintln(w)
	}
	return nil
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

// ParamGroups splits an experiment's configurations by everything but the
// integer parameter param (herd's waiter count "n"): the key without its
// "/<param>=<value>" part. Label is the implementation when that alone
// tells the groups apart, else the shortened key.
func ParamGroups(e *results.Experiment, param string) (groups []ParamGroup) {
	index := map[string]int{}
	for _, c := range e.Configs {
		n, err := strconv.Atoi(c.Params[param])
		if err != nil {
			continue
		}
		k := strings.Replace(c.Key, "/"+param+"="+c.Params[param], "", 1)
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, ParamGroup{Key: k, Impl: c.Impl, ByValue: map[int]*results.Config{}})
		}
		groups[i].ByValue[n] = c
	}
	impls := map[string]int{}
	for _, g := range groups {
		impls[g.Impl]++
	}
	for i := range groups {
		groups[i].Label = groups[i].Key
		if groups[i].Impl != "" && impls[groups[i].Impl] == 1 {
			groups[i].Label = groups[i].Impl
		}
	}
	return groups
}

// ParamGroup is one configuration across the values of a parameter.
type ParamGroup struct {
	Key, Impl, Label string
	ByValue          map[int]*results.Config
}

// renderPivots writes, for each figure whose description asks for a pivot
// (herd's first-waiter and total times by N), one row per parameter value
// and one column per configuration group, so the growth reads down a
// column. Nothing when the parameter takes fewer than two values.
func renderPivots(w io.Writer, e *results.Experiment, md bool) error {
	specs, _ := e.Specs()
	for _, m := range specs {
		if m.Pivot == nil {
			continue
		}
		groups := ParamGroups(e, m.Pivot.Param)
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
		fmt.Fprintln(w)
		if md {
			fmt.Fprintf(w, "%s%s by %s:\n\n", m.Pivot.Title, unit, strings.ToUpper(m.Pivot.Param))
		} else {
			fmt.Fprintf(w, "  %s%s by %s:\n", m.Pivot.Title, unit, strings.ToUpper(m.Pivot.Param))
		}
		header := []any{strings.ToUpper(m.Pivot.Param)}
		for _, g := range groups {
			header = append(header, g.Label)
		}
		t := newTable(w, md)
		t.Header(header...)
		for _, n := range ns {
			row := []any{strconv.Itoa(n)}
			for _, g := range groups {
				c := g.ByValue[n]
				v, ok := 0.0, false
				if c != nil {
					v, ok = c.Summary[m.Key]
				}
				if ok {
					row = append(row, FormatValue(v, m.Unit))
				} else {
					row = append(row, "-")
				}
			}
			if err := t.Append(row...); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}

func renderCSV(w io.Writer, files []Named) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"file", "machine", "experiment", "config", "impl", "placement", "metric", "value"})
	for _, n := range files {
		for _, e := range n.File.Experiments {
			for _, c := range e.Configs {
				keys := make([]string, 0, len(c.Summary))
				for k := range c.Summary {
					keys = append(keys, k)
				}
				sort.Strings(keys)
				for _, k := range keys {
					cw.Write([]string{n.Name, n.File.Machine.Slug, e.Name, c.Key, c.Impl, c.Placement, k, strconv.FormatFloat(c.Summary[k], 'g', -1, 64)})
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// whySuffix is ": " and the claim's one-line reason, when it has one.
func whySuffix(c results.Claim) string {
	if c.Why == "" {
		return ""
	}
	return ": " + c.Why
}
