package loaded

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// The collapse table: per mechanism, where its p99 wakeup latency leaves
// its unloaded value behind. It is the notes under the table
// (CollapseNotes), and the figures the claims read (claims.go).

// CollapseFactor: a mechanism has collapsed once its p99 wakeup latency
// exceeds this many times its unloaded value (its p99 at the lowest load
// of the rate sweep).
const CollapseFactor = 10.0

// Collapse is one mechanism's collapse figure.
type Collapse struct {
	Impl string
	// BaseP99 is the p99 wakeup latency (ns) at the lowest load.
	BaseP99  float64
	BaseLoad int
	// Load is the first load of the rate sweep at which the p99 wakeup
	// latency exceeded CollapseFactor x BaseP99 (0: none did; Closed:
	// only the closed loop did); LoadRatio its p99 / BaseP99 there.
	Load      int
	LoadRatio float64
	Closed    bool
	// Multiple is the first oversubscription multiple at which it did
	// (0: none); MultipleRatio likewise.
	Multiple      int
	MultipleRatio float64
	// MaxRatio is the largest p99 / BaseP99 over every configuration.
	MaxRatio float64
	// Saturated is the first load of the rate sweep at which no worker
	// slept (0: none): past it there is no wakeup to time, and the
	// request latency says what happened.
	Saturated int
}

// point is one configuration the collapse reads.
type point struct {
	load     int
	closed   bool
	multiple int
	sweeps   string
	p99      float64
	// saturated: no worker slept in the window (each always had a
	// request queued), so there is no wakeup latency to read.
	saturated bool
}

func points(configs []*results.Config) map[string][]point {
	out := map[string][]point{}
	for _, c := range configs {
		p99, ok := c.Summary[MWakeP99]
		pt := point{closed: c.Params["mode"] == "closed", sweeps: c.Params["sweep"], p99: p99, saturated: !ok}
		pt.load, pt.multiple = c.IntParam("load_pct"), c.IntParam("multiple")
		out[c.Impl] = append(out[c.Impl], pt)
	}
	return out
}

func inSweep(p point, s string) bool { return strings.Contains(p.sweeps, s) }

// Collapses computes each mechanism's collapse figure from the configurations
// of one run, in the order the mechanisms first appear. A mechanism
// without an open-loop rate point has no reference and is left out.
func Collapses(configs []*results.Config) []Collapse {
	var order []string
	seen := map[string]bool{}
	for _, c := range configs {
		if !seen[c.Impl] {
			seen[c.Impl] = true
			order = append(order, c.Impl)
		}
	}
	pts := points(configs)
	var out []Collapse
	for _, impl := range order {
		var rate, over []point
		var closed *point
		for _, p := range pts[impl] {
			switch {
			case p.closed:
				closed = &p
			case inSweep(p, "rate"):
				rate = append(rate, p)
			}
			if inSweep(p, "oversubscribe") {
				over = append(over, p)
			}
		}
		slices.SortFunc(rate, func(x, y point) int { return cmp.Compare(x.load, y.load) })
		var sat int
		for len(rate) > 0 && rate[0].saturated {
			if sat == 0 {
				sat = rate[0].load
			}
			rate = rate[1:]
		}
		if len(rate) == 0 {
			continue
		}
		slices.SortFunc(over, func(x, y point) int { return cmp.Compare(x.multiple, y.multiple) })
		c := Collapse{Impl: impl, BaseP99: rate[0].p99, BaseLoad: rate[0].load, Saturated: sat}
		ratio := func(p99 float64) float64 {
			if c.BaseP99 <= 0 {
				return 0
			}
			return p99 / c.BaseP99
		}
		for _, p := range rate {
			if p.saturated {
				if c.Saturated == 0 {
					c.Saturated = p.load
				}
				continue
			}
			r := ratio(p.p99)
			c.MaxRatio = max(c.MaxRatio, r)
			if c.Load == 0 && r > CollapseFactor {
				c.Load, c.LoadRatio = p.load, r
			}
		}
		if closed != nil && !closed.saturated {
			r := ratio(closed.p99)
			c.MaxRatio = max(c.MaxRatio, r)
			if c.Load == 0 && r > CollapseFactor {
				c.Closed, c.LoadRatio = true, r
			}
		}
		for _, p := range over {
			if p.saturated {
				continue
			}
			r := ratio(p.p99)
			c.MaxRatio = max(c.MaxRatio, r)
			if c.Multiple == 0 && r > CollapseFactor {
				c.Multiple, c.MultipleRatio = p.multiple, r
			}
		}
		out = append(out, c)
	}
	return out
}

// rank orders collapse points: a lower load collapses earlier; the closed
// loop after every load; none last.
func (c Collapse) loadRank() int {
	switch {
	case c.Load > 0:
		return c.Load
	case c.Closed:
		return 1 << 29
	}
	return 1 << 30
}

func (c Collapse) multipleRank() int {
	if c.Multiple > 0 {
		return c.Multiple
	}
	return 1 << 30
}

// earlier reports whether a collapses strictly before b: at a lower load,
// or at the same load (or none) at a smaller oversubscription multiple.
func earlier(a, b Collapse) bool {
	if a.loadRank() != b.loadRank() {
		return a.loadRank() < b.loadRank()
	}
	return a.multipleRank() < b.multipleRank()
}

// Describe is the collapse row in words.
func (c Collapse) Describe() string {
	s := fmt.Sprintf("%s: unloaded p99 wakeup %.1f µs (load %s); rate: ", c.Impl, c.BaseP99/1e3, fmtLoad(c.BaseLoad))
	switch {
	case c.Load > 0:
		s += fmt.Sprintf("collapses at load %s (p99 %.0fx)", fmtLoad(c.Load), c.LoadRatio)
	case c.Closed:
		s += fmt.Sprintf("collapses only in the closed loop (p99 %.0fx)", c.LoadRatio)
	default:
		s += "no collapse"
	}
	if c.Saturated > 0 {
		s += fmt.Sprintf(", saturated from load %s (no worker slept)", fmtLoad(c.Saturated))
	}
	s += "; oversubscription: "
	if c.Multiple > 0 {
		s += fmt.Sprintf("collapses at %dx the CPUs (p99 %.0fx)", c.Multiple, c.MultipleRatio)
	} else {
		s += "no collapse"
	}
	return s + fmt.Sprintf("; worst %.1fx", c.MaxRatio)
}

// CollapseNotes is the collapse table as one note per mechanism.
func CollapseNotes(configs []*results.Config) []string {
	var out []string
	for _, c := range Collapses(configs) {
		out = append(out, fmt.Sprintf("collapse (p99 wakeup > %.0fx unloaded) %s", CollapseFactor, c.Describe()))
	}
	return out
}
