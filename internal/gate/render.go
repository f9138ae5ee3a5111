package gate

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
	"github.com/parkbench/parkbench/internal/verdict"
)

// Report is a gate run as the ab command writes it (--out, --format=json).
type Report struct {
	Format  string          `json:"format"` // "parkbench-ab"
	Version int             `json:"version"`
	Started time.Time       `json:"started"`
	Base    Binary          `json:"base"`
	New     Binary          `json:"new"`
	Machine results.Machine `json:"machine"`
	Profile []Part          `json:"profile"`
	// Command is the first part's command line, for the reader; Commands
	// every part's (a trial is one launch of each).
	Command  []string   `json:"command"`
	Commands [][]string `json:"commands,omitempty"`
	// Load is the 1-minute load average at the start and the end.
	Load [2]float64 `json:"load"`
	// Dropped lists headline figures not judged (the base lacks them).
	Dropped []string `json:"dropped,omitempty"`
	*Outcome
}

// Binary is one side of the A/B.
type Binary struct {
	Path    string       `json:"path"`
	Version string       `json:"version"`
	Tool    results.Tool `json:"tool"`
}

// Formats are what Render writes.
var Formats = []string{"text", "markdown", "json"}

// Headline is the first line: the verdict and its counts.
func (r *Report) Headline() string {
	v := "no regression"
	if r.Regression {
		v = "REGRESSION"
	}
	parts := verdict.Tally(r.Count, nil, []verdict.Verdict{verdict.Slower, verdict.Faster, verdict.Same, verdict.Unknown})
	n := len(r.Trials)
	return fmt.Sprintf("parkbench ab: %s: %d headline rows (%s), geomean %s; %d trials in %s",
		v, len(r.Rows), parts, r.Geomean.Verdict, n, r.Duration.Round(time.Second))
}

// Render writes the report in format; text and markdown fit 120 columns
// (a row label longer than 36 characters widens them).
func Render(w io.Writer, r *Report, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case "text", "markdown":
		renderText(w, r, format == "markdown")
		return nil
	}
	return fmt.Errorf("unknown format %q; valid formats: %s", format, strings.Join(Formats, ", "))
}

func renderText(w io.Writer, r *Report, md bool) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	li := "  "
	if md {
		li = "- "
		p("**%s**\n\n", r.Headline())
	} else {
		p("%s\n", r.Headline())
	}
	para := func(head, text string) {
		if md {
			p("%s%s %s\n", li, head, text)
			return
		}
		for i, l := range wrap(text, 108) {
			if i == 0 {
				p("%s%-9s%s\n", li, head, l)
			} else {
				p("%s%-9s%s\n", li, "", strings.TrimPrefix(l, "  "))
			}
		}
	}
	// Every line within 120 columns (internal/cli's TestDefaultOutputWidth).
	para("base:", fmt.Sprintf("%s (%s)", r.Base.Path, binaryLine(r.Base)))
	para("new:", fmt.Sprintf("%s (%s)", r.New.Path, binaryLine(r.New)))
	clock := ""
	if r.Machine.TimingClock != "" {
		clock = fmt.Sprintf(", clock %s (resolution %g ns)", r.Machine.TimingClock, r.Machine.ClockResolutionNs)
	}
	para("machine:", fmt.Sprintf("%s%s, load %.2f at the start, %.2f at the end", r.Machine.Slug, clock, r.Load[0], r.Load[1]))
	base, extra := r.Options.Trials, 0
	for _, t := range r.Trials {
		if t.Look > 1 && t.Side == Base {
			extra++
		}
	}
	ext := ""
	if extra > 0 {
		ext = fmt.Sprintf(", then %d+%d more for the rows still unknown", extra, extra)
	}
	cmds := r.Commands
	if len(cmds) == 0 {
		cmds = [][]string{r.Command}
	}
	var launches []string
	for _, c := range cmds {
		launches = append(launches, "parkbench "+strings.Join(c, " "))
	}
	each := "each one launch of "
	if len(launches) > 1 {
		each = fmt.Sprintf("each %d launches: ", len(launches))
	}
	para("trials:", fmt.Sprintf("%d+%d in ABBA/BAAB blocks of random orientation (seed %d)%s; %s%s",
		base, base, r.Options.Seed, ext, each, strings.Join(launches, "; ")))
	// The geomean of ratios and raw figures together has no unit: only its
	// new/base is shown then.
	figure, raw := "a ratio to its floor in the same trial", 0
	for _, part := range r.Profile {
		if part.Raw {
			figure += "; " + part.Experiment + " rows: the figure itself"
			raw++
		}
	}
	mixed := raw > 0 && raw < len(r.Profile)
	para("rule:", fmt.Sprintf("per row, over the trials' figure (%s), a Mann-Whitney U test "+
		"of shift and one of spread (p = twice the smaller), Holm over %d tests at α=%g/%d looks; a change of the median or "+
		"the bad quartile counts beyond ±%g%%; \"same\" also when the %g%% interval of new/base excludes +%g%%; \"unknown\" "+
		"rows get more trials, up to %d a side",
		figure, len(r.Rows)+1, r.Options.Alpha, r.Options.Looks(), 100*r.Options.MinEffect, 100*r.Options.Confidence, 100*r.Options.MinEffect, r.Options.MaxTrials))
	p("\n")

	rows := append(append([]RowResult(nil), r.Rows...), r.Geomean)
	header := []string{"row", "base", "new", "new/base [CI]", "p (adj)", "n", "verdict"}
	var cells [][]string
	for _, x := range rows {
		label := x.Label()
		if x.Header == "geomean" {
			label = x.Config
		}
		base, nw := x.cell(x.BaseMedian), x.cell(x.NewMedian)
		if mixed && x.Header == "geomean" {
			base, nw = "-", "-"
		}
		cells = append(cells, []string{label, base, nw,
			fmt.Sprintf("%s [%s, %s]", num(x.Ratio), num(x.Lo), num(x.Hi)), pval(x.PAdj),
			fmt.Sprintf("%d+%d", x.NBase, x.NNew), x.Verdict.Cell(md)})
	}
	table(w, header, cells, md)
	p("\n")
	note := func(text string) {
		if md {
			p("%s%s\n", li, text)
			return
		}
		for _, l := range wrap(text, 116) {
			p("%s%s\n", li, l)
		}
	}
	for _, x := range rows {
		if x.Verdict != verdict.Same {
			label := x.Label()
			if x.Header == "geomean" {
				label = x.Config
			}
			note(fmt.Sprintf("%s: %s: %s", label, x.Verdict, x.Reason))
		}
	}
	if raw := rawLine(r); raw != "" {
		note(raw)
	}
	for _, d := range r.Dropped {
		note("not judged: " + d)
	}
	var multi []string
	for _, x := range r.Rows {
		if x.MultimodalBase+x.MultimodalNew > 0 {
			multi = append(multi, fmt.Sprintf("%s %d/%d base, %d/%d new", x.Config, x.MultimodalBase, x.NBase, x.MultimodalNew, x.NNew))
		}
	}
	if len(multi) > 0 {
		note("multimodal trials (the row or its floor had several modes): " + strings.Join(multi, "; ") +
			"; such a row is judged on the spread of its per-trial figures across trials (a rank test), never on one pooled median")
	}
}

func binaryLine(b Binary) string {
	if b.Version != "" && !strings.HasPrefix(b.Version, "no --version") {
		return b.Version
	}
	t := b.Tool
	s := "parkbench " + t.Version
	if t.Commit != "" {
		s += " " + t.Commit[:min(12, len(t.Commit))]
	}
	return s + " " + t.GoVersion
}

// cell shows a row's judged figure: a ratio as a plain number; a raw
// figure (no floor) in its unit.
func (r RowResult) cell(v float64) string {
	if r.Floor != "" || r.Header == "geomean" || math.IsNaN(v) || math.IsInf(v, 0) {
		return num(v)
	}
	switch r.Unit {
	case results.UnitMicros:
		return fmt.Sprintf("%.2f µs", v/1e3)
	case results.UnitNanos:
		return fmt.Sprintf("%.1f ns", v)
	}
	return num(v)
}

func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "-"
	}
	return fmt.Sprintf("%.3f", v)
}

func pval(p float64) string {
	if p < 0.001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.3f", p)
}

// table writes aligned columns (text) or a markdown table.
func table(w io.Writer, header []string, rows [][]string, md bool) {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat(" --- |", len(header)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		return
	}
	width := make([]int, len(header))
	for i, h := range header {
		width[i] = len([]rune(h))
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range cells {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))))
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(header)
	for _, r := range rows {
		line(r)
	}
}

// rawLine gives the raw medians over trials of every measured
// configuration, base -> new: "raw medians over trials (µs): futex/cross-core
// 30.12 -> 30.40, ...".
func rawLine(r *Report) string {
	type pair struct{ base, new []float64 }
	by := map[string]*pair{}
	for _, t := range r.Trials {
		for k, v := range t.Raw {
			if by[k] == nil {
				by[k] = &pair{}
			}
			if t.Side == Base {
				by[k].base = append(by[k].base, v)
			} else {
				by[k].new = append(by[k].new, v)
			}
		}
	}
	if len(by) == 0 {
		return ""
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	units := map[string]string{}
	for _, row := range r.Rows {
		units[row.Metric] = row.Unit
	}
	var parts []string
	for _, k := range keys {
		f := strings.Fields(k) // experiment config metric
		if len(f) != 3 {
			continue
		}
		b, n, u := stats.Median(by[k].base), stats.Median(by[k].new), "" // NaN (printed NaN) for a side with none
		switch units[f[2]] {
		case results.UnitMicros:
			b, n, u = b/1000, n/1000, " µs"
		case results.UnitNanos:
			u = " ns"
		}
		parts = append(parts, fmt.Sprintf("%s %s %.2f -> %.2f%s", f[1], f[2], b, n, u))
	}
	return "raw medians over trials, base -> new: " + strings.Join(parts, ", ")
}

// wrap breaks s at spaces into lines of at most width runes; continuation
// lines are indented by two spaces.
func wrap(s string, width int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			out = append(out, line)
			line = "  " + w
			continue
		}
		if line == "" {
			line = w
		} else {
			line += " " + w
		}
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}
