package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/verdict"
)

// ComponentDiff is one configuration's wake anatomy (latency --anatomy:
// the components' medians, docs/anatomy.md) on both sides: which part of
// a wake differs. It is read off the configuration's rows, so it says
// what the table says: the same figure (the median of the rounds), the
// same test, the same verdict.
type ComponentDiff struct {
	Experiment string `json:"experiment"`
	Config     string `json:"config"`
	// Names are the components in wake order; Base and New their figures
	// (ns), Verdicts the rows' verdicts, Moved whether each is faster or
	// slower, or, not compared (across machine classes: a component has
	// no floor), changed by more than the threshold.
	Names    []string          `json:"names"`
	Base     []float64         `json:"base"`
	New      []float64         `json:"new"`
	Verdicts []verdict.Verdict `json:"verdicts"`
	Moved    []bool            `json:"moved"`
}

// componentDiff is the parts of one configuration's rows (the first of
// its experiment's sections with Parts: internal/report/section); ok false
// when they have no part on both sides.
func componentDiff(rows []Row, threshold float64) (ComponentDiff, bool) {
	var d ComponentDiff
	if len(rows) == 0 {
		return d, false
	}
	for _, c := range section.PartsOf(rows[0].Experiment) {
		for _, r := range rows {
			if r.Metric == c.Metric && r.Base.N > 0 && r.New.N > 0 {
				d.Experiment, d.Config = r.Experiment, r.Config
				d.Names = append(d.Names, c.Name)
				d.Base, d.New = append(d.Base, r.Base.Figure()), append(d.New, r.New.Figure())
				d.Verdicts = append(d.Verdicts, r.Verdict)
				d.Moved = append(d.Moved, r.Verdict == verdict.Faster || r.Verdict == verdict.Slower ||
					r.Verdict == verdict.NotCompared && math.Abs(r.Ratio-1) > threshold)
			}
		}
	}
	return d, len(d.Names) > 0
}

// AnyMoved reports whether a component moved.
func (d ComponentDiff) AnyMoved() bool {
	for _, m := range d.Moved {
		if m {
			return true
		}
	}
	return false
}

// Line says which components moved, with both figures and the table's
// verdict, and which did not: "futex/cross-core: idle_exit 19.7 µs →
// 3.0 µs faster; call, schedule, return and residual ~".
func (d ComponentDiff) Line() string {
	var moved, still []string
	for i, c := range d.Names {
		if d.Moved[i] {
			v := string(d.Verdicts[i])
			if d.Verdicts[i] == verdict.NotCompared {
				v = fmt.Sprintf("(%s, not compared)", change(d.New[i]/d.Base[i]))
			}
			moved = append(moved, fmt.Sprintf("%s %s → %s %s", c, timeUnit(d.Base[i]), timeUnit(d.New[i]), v))
		} else {
			still = append(still, c)
		}
	}
	var parts []string
	if len(moved) > 0 {
		parts = append(parts, strings.Join(moved, ", "))
	}
	switch {
	case len(still) == len(d.Names):
		parts = append(parts, "every component ~ (no significant change)")
	case len(still) > 0:
		parts = append(parts, andList(still)+" ~")
	}
	return d.Config + ": " + strings.Join(parts, "; ")
}

// partsTitle introduces experiment's parts in the output (its section's
// PartsTitle).
func partsTitle(experiment string) string {
	for _, s := range section.For(experiment) {
		if len(s.Parts) > 0 {
			return s.PartsTitle
		}
	}
	return "parts (" + experiment + ")"
}

func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// componentSummary is the result line's account of the components: which
// moved, in how many configurations.
func componentSummary(ds []ComponentDiff) string {
	if len(ds) == 0 {
		return ""
	}
	count := map[string]int{}
	for _, d := range ds {
		for i, c := range d.Names {
			if d.Moved[i] {
				count[c]++
			}
		}
	}
	var moved []string
	for _, c := range section.PartsOf(ds[0].Experiment) {
		if n := count[c.Name]; n > 0 {
			moved = append(moved, fmt.Sprintf("%s in %d", c.Name, n))
		}
	}
	if len(moved) == 0 {
		return fmt.Sprintf("the wake's components agree in all %d configurations with an anatomy", len(ds))
	}
	return fmt.Sprintf("where a wake's time differs, of %d configurations with an anatomy: %s", len(ds), strings.Join(moved, ", "))
}
