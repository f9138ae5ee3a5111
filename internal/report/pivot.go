package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/plot"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

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
