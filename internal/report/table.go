package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

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
	if more := wideNote(dropped, diag); more != "" && !(o.Brief && !o.Verbose) {
		p.item(more)
	}
	for _, l := range legend {
		p.item(l)
	}
	if !o.Brief || o.Verbose {
		renderPivots(p, e) // the table's figures again, by a parameter
	}
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

// tableWidth is the width of t as a box table.
func tableWidth(t textfmt.Table) int {
	var b strings.Builder
	if _, err := t.Render(&b, false, 0); err != nil {
		return 0
	}
	return textfmt.MaxWidth(strings.TrimRight(b.String(), "\n"))
}
