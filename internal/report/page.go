package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"

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
	p.write(wrapItem(depth, text, p.md) + "\n")
}

// wrapItem is text as an item at depth: wrapped to textfmt.Columns under
// its indents (a markdown list item's in markdown).
func wrapItem(depth int, text string, md bool) string {
	first, rest := "  "+strings.Repeat("  ", depth), "      "+strings.Repeat("  ", depth)
	if md {
		first, rest = strings.Repeat("  ", depth)+"- ", strings.Repeat("  ", depth)+"  "
	}
	return textfmt.Wrap(text, textfmt.Columns, first, rest)
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

func renderText(w io.Writer, n results.Named, md bool, o Options) error {
	f := n.File
	p := &page{w: w, md: md, wide: o.Wide}
	notes, refs := footnotes(f)
	if o.Summary {
		renderSummaryTo(p, f)
		renderFootnotes(p, notes, o.Verbose)
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
		renderExperiment(p, e, o, refs[e.Name])
	}
	renderFootnotes(p, notes, o.Verbose)
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

// Reason is a claim's reason in a line or two, never empty: its Why (the
// claim kit's one line with the figure, internal/claim), or for a file
// written before every claim had one, its margin when near, else its
// evidence cut after the last "; " that keeps it under about two lines.
func Reason(c results.Claim) string {
	switch {
	case c.Why != "" && c.Near && strings.Contains(c.Margin, " against "): // Limit.Describe's, before the kit
		return c.Why + "; near its limit: " + shortMargin(c.Margin)
	case c.Why != "":
		return c.Why
	case c.Near && c.Margin != "":
		return shortMargin(c.Margin)
	case c.Evidence == "":
		return "no reason recorded (a file from an older parkbench)"
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

// renderExperiment writes e's section; refs are the numbers of the
// file's footnotes (its warnings) that concern it, named in its heading.
func renderExperiment(p *page, e *results.Experiment, o Options, refs []int) {
	head := e.Name
	if len(refs) > 0 {
		head += " (warnings" + refList(refs) + ")"
	}
	if p.md {
		p.heading(3, head)
	} else {
		p.heading(0, head)
	}
	brief := o.Brief && !o.Verbose
	if !brief {
		p.item("runtime: " + RuntimeSummary(e.Runtime))
	}
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
		renderSections(p, e, ks)
	}
	p.blank()
	if brief {
		briefClaims(p, e)
		p.blank()
		return
	}
	// Three or more claims this run could not decide (a run of one
	// implementation: they compare several; or a busy machine: the claim
	// kit's "cannot judge") take a line per cause without --verbose, so the
	// claims it did decide are not buried.
	var needs, cannot []string
	reason := ""
	for _, c := range e.Claims {
		r, _, _ := strings.Cut(c.Why, " (")
		if strings.Contains(c.Why, "; not judged: ") {
			r = "cannot judge: every figure was left out"
		}
		switch {
		case c.Verdict != results.NotEvaluated:
		case strings.HasPrefix(r, "cannot judge"):
			if cannot = append(cannot, c.ID); reason == "" || reason == r {
				reason = r
			} else {
				reason = "cannot judge: every figure was left out"
			}
		default:
			needs = append(needs, c.ID)
		}
	}
	collapse := !o.Verbose && len(needs)+len(cannot) >= 3
	for _, c := range e.Claims {
		if collapse && c.Verdict == results.NotEvaluated {
			continue
		}
		p.item(fmt.Sprintf("claim %s: %s: %s", c.ID, claimMarkOf(c, p.md), c.Statement))
		// --verbose prints the evidence, which an old file's reason is cut from.
		if (c.Verdict != results.Holds || c.Near) && !(o.Verbose && c.Why == "" && c.Margin == "" && c.Evidence != "") {
			p.sub("why: " + Reason(c))
		}
		if o.Verbose && c.Evidence != "" {
			p.sub("evidence: " + c.Evidence)
		}
	}
	if collapse && len(needs) > 0 {
		p.item(fmt.Sprintf("not evaluated: %s: each compares implementations or experiments this run did not measure together ('parkbench %s' with every implementation, or 'parkbench run'; --verbose says what each needs)",
			strings.Join(needs, ", "), e.Name))
	}
	if collapse && len(cannot) > 0 {
		p.item(fmt.Sprintf("not evaluated: %s: %s (--verbose has each)", strings.Join(cannot, ", "), reason))
	}
	for _, n := range e.Notes {
		p.item("note: " + n)
	}
	p.blank()
}

// briefClaims is e's claims in one line, by verdict: the summary has the
// figure and limit of each that does not hold, --verbose each claim's
// statement and evidence.
func briefClaims(p *page, e *results.Experiment) {
	by := map[string][]string{}
	for _, c := range e.Claims {
		id := c.ID
		if c.Near && c.Verdict != results.NotEvaluated {
			id += " (near its limit)"
		}
		by[c.Verdict] = append(by[c.Verdict], id)
	}
	var parts []string
	for _, v := range []string{results.Holds, results.DoesNotHold, results.NotEvaluated} {
		if len(by[v]) > 0 {
			parts = append(parts, v+": "+strings.Join(by[v], ", "))
		}
	}
	if len(parts) > 0 {
		p.item("claims: " + strings.Join(parts, "; ") + " (-v: each with its statement, reason and evidence)")
	}
}

// claimMarkOf is claimMark with ", near its limit" when the claim was
// decided within its rounds' spread (results.Claim.Near).
func claimMarkOf(c results.Claim, md bool) string {
	m := claimMark(c.Verdict, md)
	if !c.Near || c.Verdict == results.NotEvaluated {
		return m
	}
	if md {
		return m + ", near its limit"
	}
	return m + ", NEAR ITS LIMIT"
}

// figures are the numbers of a prose warning, taken out to group the
// configurations whose warnings differ only in them ("other processes
// used 7% of the CPU" / "... 12% ...").
var figures = regexp.MustCompile(`[0-9]+(\.[0-9]+)?`)

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
