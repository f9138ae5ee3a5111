package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

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
// not hold or hold near their limit, each with its reason (Reason).
type SummaryLine struct {
	Experiment string
	Text       string
	Sub        []string
}

// SummaryLines is the summary of f: per experiment, its headline sentence
// (the study's question answered with its figure; the spread of its main
// figure for an experiment without one), its configurations, the tally of
// its claims and the numbers of its warnings' footnotes, and under it the
// claims that do not hold: each with its figure and the limit while the
// summary fits summaryBudget lines of text, the others named (a claim
// that holds near its limit is counted in the tally and given in its
// section: the summary stays one screen).
func SummaryLines(f *results.File) []SummaryLine {
	var out []SummaryLine
	var fails [][]results.Claim
	_, refs := footnotes(f)
	for _, e := range f.Experiments {
		tally := map[string]int{}
		near := 0
		var failed []results.Claim
		for _, c := range e.Claims {
			tally[c.Verdict]++
			if c.Near && c.Verdict != results.NotEvaluated {
				near++
			}
			if c.Verdict == results.DoesNotHold {
				failed = append(failed, c)
			}
		}
		h := ""
		if s, ok := sentences[e.Name]; ok {
			h = s(e)
		}
		if h == "" {
			h = headline(e, shortener(e))
		}
		line := e.Name + ": "
		if h != "" {
			line += h + "; "
		}
		if len(e.Claims) == 0 {
			line += fmt.Sprintf("%d configuration%s", len(e.Configs), plural(len(e.Configs)))
		} else {
			line += fmt.Sprintf("claims: %d hold, %d do not, %d not evaluated",
				tally[results.Holds], tally[results.DoesNotHold], tally[results.NotEvaluated])
			if near > 0 {
				line += fmt.Sprintf(" (%d near its limit)", near)
			}
		}
		line += refList(refs[e.Name])
		out = append(out, SummaryLine{Experiment: e.Name, Text: line})
		fails = append(fails, failed)
	}
	// How many of each experiment's failed claims get their figure: up to
	// summaryClaims each, then one fewer where most are given, the later
	// experiment first, until the text fits (or none is given).
	given := make([]int, len(out))
	for i := range given {
		given[i] = min(len(fails[i]), summaryClaims)
	}
	for {
		n := 0
		for i := range out {
			out[i].Sub = failedLines(fails[i], given[i])
			n += textLines(0, out[i].Text)
			for _, s := range out[i].Sub {
				n += textLines(1, s)
			}
		}
		most := -1
		for i, k := range given {
			if k > 0 && (most < 0 || k >= given[most]) {
				most = i
			}
		}
		if n <= summaryBudget || most < 0 {
			return out
		}
		given[most]--
	}
}

// failedLines are the lines under an experiment for its claims that do not
// hold: the first given with their figure, the rest named in one line.
func failedLines(failed []results.Claim, given int) []string {
	var sub, more []string
	for i, c := range failed {
		if i < given {
			sub = append(sub, c.VerdictText()+": "+c.ID+": "+shortReason(c))
		} else {
			more = append(more, c.ID)
		}
	}
	switch {
	case len(more) > 0 && given > 0:
		sub = append(sub, "and "+strings.Join(more, ", ")+" (-v: each with its figure)")
	case len(more) > 0:
		sub = append(sub, results.DoesNotHold+": "+strings.Join(more, ", ")+" (-v: each with its figure)")
	}
	return sub
}

// textLines is how many lines text takes in the text summary at depth.
func textLines(depth int, text string) int {
	return strings.Count(wrapItem(depth, text, false), "\n") + 1
}

// summaryClaims is how many claims that do not hold an experiment's
// summary gives with their figure, at most.
const summaryClaims = 2

// summaryBudget is the text summary's lines at most, its title besides
// (one screen with it), when its headlines leave room: past it, claims
// that do not hold are named without their figure.
const summaryBudget = 24

// shortReason is a claim's reason as the summary gives it: its figure and
// the limit it missed (Reason up to the first parenthesis after its
// limit: the rounds, the context and the other figures are the claim's
// own line's).
func shortReason(c results.Claim) string {
	r := Reason(c)
	at := strings.Index(r, ", limit ")
	if at < 0 {
		return r
	}
	if i := strings.Index(r[at:], " ("); i > 0 {
		return r[:at+i]
	}
	return r
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

// shortMargin is a claim's margin cut to its first two limits, with how
// many more (--verbose has them all): the reason of a near claim in a
// file written before the claim kit gave every such claim a Why.
func shortMargin(m string) string {
	parts := strings.Split(m, "; ")
	if len(parts) <= 2 {
		return m
	}
	return strings.Join(parts[:2], "; ") + fmt.Sprintf("; %d more near their limit (see the claim)", len(parts)-2)
}
