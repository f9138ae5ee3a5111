package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// renderStacks prints each configuration's Detail as an aligned block, in
// the experiment's DetailOrder ("what" in the heading; keys it does not
// name after it, alphabetically); multi-line values continue under their
// first line, long ones wrap there.
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
		for _, k := range e.DetailOrder {
			if _, ok := c.Detail[k]; ok && k != "what" {
				keys = append(keys, k)
			}
		}
		var rest []string
		for k := range c.Detail {
			if k != "what" && !slices.Contains(e.DetailOrder, k) {
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
