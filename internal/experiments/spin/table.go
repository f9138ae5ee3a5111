package spin

import (
	"slices"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// placed is one placement's configurations, read back from a result (the
// claims and the answers read only Params, Impl, Kind and the figures).
type placed struct {
	placement string
	ping      *results.Config
	gaps      []time.Duration
	// fixed is each gap's fixed-budget rows by budget, unbounded last.
	fixed map[time.Duration][]budgeted
	// named is each gap's other rows by name.
	named map[time.Duration]map[string]*results.Config
}

// budgeted is a fixed row and its budget.
type budgeted struct {
	budget time.Duration
	c      *results.Config
}

// byPlacement reads the configurations of a spin run, per placement in
// the order they appear.
func byPlacement(cfgs []*results.Config) []*placed {
	var out []*placed
	get := func(pl string) *placed {
		for _, p := range out {
			if p.placement == pl {
				return p
			}
		}
		p := &placed{placement: pl, fixed: map[time.Duration][]budgeted{}, named: map[time.Duration]map[string]*results.Config{}}
		out = append(out, p)
		return p
	}
	for _, c := range cfgs {
		pl := c.Params["placement"]
		if pl == "" {
			continue
		}
		p := get(pl)
		if c.Impl == RowPingPong {
			p.ping = c
			continue
		}
		gap, err := time.ParseDuration(c.Params["gap"])
		if err != nil {
			continue
		}
		if !slices.Contains(p.gaps, gap) {
			p.gaps = append(p.gaps, gap)
		}
		if c.Impl == RowFixed {
			b, err := ParseBudget(c.Params["budget"])
			if err != nil {
				continue
			}
			p.fixed[gap] = append(p.fixed[gap], budgeted{b, c})
			continue
		}
		if p.named[gap] == nil {
			p.named[gap] = map[string]*results.Config{}
		}
		p.named[gap][c.Impl] = c
	}
	for _, p := range out {
		slices.Sort(p.gaps)
		for g := range p.fixed {
			slices.SortFunc(p.fixed[g], func(a, b budgeted) int {
				switch {
				case a.budget < b.budget:
					return -1
				case a.budget > b.budget:
					return 1
				}
				return 0
			})
		}
	}
	return out
}

// find returns the placement named pl, or nil.
func find(ps []*placed, pl string) *placed {
	for _, p := range ps {
		if p.placement == pl {
			return p
		}
	}
	return nil
}

// competitive is the placement's park + wake cost (ns): the ping-pong's
// cost, the median over rounds; 0 when it was not measured.
func (p *placed) competitive() float64 {
	if p.ping == nil {
		return 0
	}
	return p.ping.Summary[MCost]
}

// fixedAt is the fixed row of budget b at gap g, or nil.
func (p *placed) fixedAt(g, b time.Duration) *results.Config {
	for _, f := range p.fixed[g] {
		if f.budget == b {
			return f.c
		}
	}
	return nil
}
