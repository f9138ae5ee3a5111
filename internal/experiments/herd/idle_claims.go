package herd

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// ClaimIdleWasted is the idle pool's claim.
const ClaimIdleWasted = "herd-idle-notify-all-delays"

// Limits of the claim.
const (
	idleDelay  = 1.25
	idleRounds = 3
)

// idlePair is notify_all (waking everyone) and notify_one on the same
// mutex and parker, at one placement, lock-held setting and N.
type idlePair struct {
	name     string // "futex-broadcast", "lot-wakeall/lot"
	group    string // placement and lock-held
	n        int
	all, one *results.Config
}

// idlePairs finds them: an implementation's own wake=all and wake=one
// (futex-broadcast), and lot-wakeall's against lot's notify_one.
func idlePairs(cfgs []*results.Config) []idlePair {
	type k struct {
		impl, group, wake string
		n                 int
	}
	by := map[k]*results.Config{}
	for _, c := range cfgs {
		if c.Params["mode"] == ModeIdle {
			by[k{c.Impl, c.Placement + "/lock-held=" + c.Params["lock_held"], c.Params["wake"], c.IntParam("n")}] = c
		}
	}
	var out []idlePair
	for key, all := range by {
		switch one, lot := by[k{key.impl, key.group, wakeOne, key.n}], by[k{"lot", key.group, wakeOne, key.n}]; {
		case key.wake != wakeAll:
		case one != nil:
			out = append(out, idlePair{key.impl, key.group, key.n, all, one})
		case key.impl == "lot-wakeall" && lot != nil:
			out = append(out, idlePair{"lot-wakeall/lot", key.group, key.n, all, lot})
		}
	}
	slices.SortFunc(out, func(a, b idlePair) int { return cmp.Or(strings.Compare(a.name+a.group, b.name+b.group), a.n-b.n) })
	return out
}

// IdleClaims evaluates the idle pool's claim (numCPU: the CPUs the run
// had). Pure: it reads Params, Impl, Placement and the rounds. The
// evidence gives, per pair, the smallest N from which the median ratio
// stays at or above the limit, and the CPU per request.
func IdleClaims(cfgs []*results.Config, numCPU int) []results.Claim {
	return []results.Claim{claim.Evaluate(claim.Rule{ID: ClaimIdleWasted, MinRounds: idleRounds, Statement: fmt.Sprintf(
		"notify_all's wasted wakes cost the request itself, not only the CPU, once the idle workers outnumber the CPUs: at every N > %d, "+
			"the latency until a worker holds the item with notify_all (waking every worker) is at least %.2fx notify_one's on the same mutex and parker "+
			"(futex-broadcast's own; lot-wakeall against lot)", numCPU, idleDelay),
		Needs: fmt.Sprintf("needs notify_all and notify_one on one mutex (futex-broadcast, or lot-wakeall and lot) at some N > %d (herd --mode=idle)", numCPU),
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			for _, p := range idlePairs(cs) {
				if p.n > numCPU {
					out = append(out, claim.Fig(fmt.Sprintf("%s %s N=%d all/one latency", p.name, p.group, p.n), claim.Ratios(p.all, p.one, results.MMedian), p.all, p.one).
						In("x").AtLeast(idleDelay).With(fmt.Sprintf("CPU %.1f vs %.1f µs, wasted %.1f", p.all.Summary[MCPUPerRequest]/1e3, p.one.Summary[MCPUPerRequest]/1e3, p.all.Summary[MWastedWakes])))
				}
			}
			return out
		},
		Context: func(cs []*results.Config) []string {
			onset := map[string]int{}
			for _, p := range idlePairs(cs) {
				id := p.name + " " + p.group
				if med := stats.Median(claim.Ratios(p.all, p.one, results.MMedian)); med < idleDelay {
					onset[id] = -1
				} else if onset[id] <= 0 {
					onset[id] = p.n
				}
			}
			var from []string
			for _, id := range slices.Sorted(maps.Keys(onset)) {
				if onset[id] > 0 {
					from = append(from, fmt.Sprintf("%s from N=%d", id, onset[id]))
				} else {
					from = append(from, id+" at no N measured")
				}
			}
			return []string{"delayed: " + strings.Join(from, ", ")}
		}}, cfgs)}
}
