package compare

import (
	"fmt"
	"math"
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
)

// ComponentDiff is one configuration's wake anatomy (latency --anatomy:
// the components' medians, docs/anatomy.md) on both sides: which part of
// a wake differs, the question a comparison of two machine classes asks.
type ComponentDiff struct {
	Experiment string `json:"experiment"`
	Config     string `json:"config"`
	// Names are the components in wake order; Base and New their medians
	// (ns); Moved whether each changed (ComponentMoved).
	Names []string  `json:"names"`
	Base  []float64 `json:"base"`
	New   []float64 `json:"new"`
	Moved []bool    `json:"moved"`
}

// ComponentFloorNs: a component moved only when it changed by more than
// the threshold of the larger side and by at least this much. Components
// of a few hundred ns (call, residual) are below the trace's own cost per
// record, and a 0 (idle_exit on a busy CPU) has no ratio.
const ComponentFloorNs = 1000

// ComponentMoved is the rule: |new - base| >= ComponentFloorNs and
// |new - base| > threshold x max(base, new).
func ComponentMoved(base, new, threshold float64) bool {
	d := math.Abs(new - base)
	return d >= ComponentFloorNs && d > threshold*math.Max(base, new)
}

// componentDiff is a's and b's anatomy of one configuration (ok false when
// either side has none).
func componentDiff(b, n side, threshold float64) (ComponentDiff, bool) {
	d := ComponentDiff{Experiment: n.exp.Name, Config: n.cfg.Key}
	for _, c := range anatomy.Components {
		k := anatomy.MedianKey(c)
		bv, bok := b.cfg.Summary[k]
		nv, nok := n.cfg.Summary[k]
		if !bok || !nok {
			return ComponentDiff{}, false
		}
		d.Names = append(d.Names, c)
		d.Base = append(d.Base, bv)
		d.New = append(d.New, nv)
		d.Moved = append(d.Moved, ComponentMoved(bv, nv, threshold))
	}
	return d, true
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

// Line says which components moved and by how much, and which did not:
// "futex/cross-core: idle_exit 19.7 µs → 3.0 µs; call, schedule, return
// and residual within 10%".
func (d ComponentDiff) Line(threshold float64) string {
	var moved, still []string
	for i, c := range d.Names {
		if d.Moved[i] {
			moved = append(moved, fmt.Sprintf("%s %s → %s", c, us(d.Base[i]), us(d.New[i])))
		} else {
			still = append(still, c)
		}
	}
	within := fmt.Sprintf("within %g%% (or 1 µs)", 100*threshold)
	var parts []string
	if len(moved) > 0 {
		parts = append(parts, strings.Join(moved, ", "))
	}
	switch {
	case len(still) == len(d.Names):
		parts = append(parts, "every component "+within)
	case len(still) > 0:
		parts = append(parts, andList(still)+" "+within)
	}
	return d.Config + ": " + strings.Join(parts, "; ")
}

func us(ns float64) string { return fmt.Sprintf("%.1f µs", ns/1000) }

func andList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// componentSummary is the result line's account of the components across
// machine classes: which moved, in how many configurations.
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
	for _, c := range anatomy.Components {
		if n := count[c]; n > 0 {
			moved = append(moved, fmt.Sprintf("%s in %d", c, n))
		}
	}
	if len(moved) == 0 {
		return fmt.Sprintf("the wake's components agree in all %d configurations with an anatomy", len(ds))
	}
	return fmt.Sprintf("where a wake's time differs, of %d configurations with an anatomy: %s", len(ds), strings.Join(moved, ", "))
}
