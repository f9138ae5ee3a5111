package loaded

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs.
const (
	ClaimSpinFirst    = "loaded-spin-collapses-first"
	ClaimSpinBeforePk = "loaded-spin-before-park-oversubscribed"
)

// minRounds is the rounds a loaded claim needs before its spread shows
// (claim.Rule.MinRounds): a p99 of n wakeups is set by its n/100 largest,
// and one round of the default suite's quick sweep read spin-park/futex at
// 4x 1.74x, then 0.62x, in two default runs (docs/experiments.md, "loaded").
const minRounds = 3

// Claims evaluates loaded's claims from one run's configurations. It is a
// pure function of its input.
func Claims(configs []*results.Config) []results.Claim {
	const few = "a p99 of n wakeups is set by its n/100 largest"
	return claim.EvaluateAll(configs,
		// Busy-waiting collapses before any sleeping mechanism (crossbeam
		// #821, parking_lot #338/#437: spinners steal the CPU the thread
		// they wait for needs).
		claim.Rule{ID: ClaimSpinFirst, MinRounds: minRounds,
			Statement: fmt.Sprintf("the spinning waiter degrades first: spin's p99 wakeup latency exceeds %.0fx its unloaded value at a lower load or thread count than every sleeping mechanism's", CollapseFactor),
			Needs:     "needs spin and at least one sleeping mechanism, with a rate sweep",
			How:       "per round, spin's collapse strictly before every sleeping mechanism's (1) or not (0), " + few,
			Figures: func(cs []*results.Config) []claim.Figure {
				if _, _, ok := spinFirst(Collapses(cs)); !ok {
					return nil
				}
				var firsts []string
				rounds := claim.PerRound(cs, func(m []map[string]float64) (float64, bool) {
					holds, first, ok := spinFirst(collapsesIn(cs, m))
					firsts = append(firsts, first)
					if holds {
						return 1, ok
					}
					return 0, ok
				})
				f := claim.Fig("spin first to degrade (1 yes, 0 no)", rounds, cs...).AtLeast(1)
				if len(rounds) > 1 {
					f = f.With("degrades first per round: " + strings.Join(claim.Notes(firsts...), ", "))
				}
				return []claim.Figure{f}
			},
			Context: func(cs []*results.Config) []string {
				_, first, _ := spinFirst(Collapses(cs))
				out := []string{"degrades first on the medians over rounds: " + first}
				for _, c := range Collapses(cs) {
					out = append(out, c.Describe())
				}
				return out
			}},
		// parking_lot's SpinWait before the futex wait, against the futex
		// wait alone (the two run in the same round). A configuration in
		// which no worker slept (each always had a request queued) has no
		// wakeup latency: it is no p99 of 0, and its multiple is shown, not
		// judged (two default runs on the AMD EPYC f25m17 guest at load 10-19
		// read "spin-park 0.0 µs vs futex 0.0 µs" as a failure, then 2672.6
		// µs against 0.0 as a hold).
		claim.Rule{ID: ClaimSpinBeforePk, MinRounds: minRounds,
			Statement: "spinning before parking hurts once threads outnumber the CPUs: spin-park's p99 wakeup latency above futex's (no spinning) at every oversubscription of 2x or more",
			Needs:     "needs spin-park and futex in the oversubscription sweep at 2x or more, both with a wakeup latency",
			How:       "per multiple, spin-park's p99 over futex's in each round, " + few,
			Select: func(c *results.Config) bool {
				return strings.Contains(c.Params["sweep"], "oversubscribe") && c.IntParam("multiple") >= 2 && (c.Impl == "spin-park" || c.Impl == "futex")
			},
			Figures: func(cs []*results.Config) (out []claim.Figure) {
				for _, sp := range cs {
					fx := claim.Find(cs, func(c *results.Config) bool {
						return c.Impl == "futex" && c.IntParam("multiple") == sp.IntParam("multiple")
					})
					if sp.Impl != "spin-park" || fx == nil {
						continue
					}
					f := claim.Fig(fmt.Sprintf("%dx spin-park/futex p99", sp.IntParam("multiple")), claim.Ratios(sp, fx, MWakeP99), sp, fx).In("x").Above(1)
					var sat []string
					for _, c := range []*results.Config{sp, fx} {
						if _, ok := c.Summary[MWakeP99]; !ok {
							sat = append(sat, c.Impl)
						}
					}
					if len(sat) > 0 {
						f = f.Skip("no worker of " + strings.Join(sat, ", ") + " slept: each always had a request queued, no wakeup to time")
					} else {
						f = f.With(fmt.Sprintf("spin-park %.1f µs (%.0f wakeups) vs futex %.1f µs (%.0f wakeups)",
							sp.Summary[MWakeP99]/1e3, sp.Summary[MWakeups], fx.Summary[MWakeP99]/1e3, fx.Summary[MWakeups]))
					}
					out = append(out, f)
				}
				slices.SortFunc(out, func(a, b claim.Figure) int { return a.Of[0].IntParam("multiple") - b.Of[0].IntParam("multiple") })
				return out
			}},
	)
}

// collapsesIn is the collapse figures of cs measured as m says (one
// round's metrics, or the summaries), in the order of cs.
func collapsesIn(cs []*results.Config, m []map[string]float64) []Collapse {
	cp := make([]*results.Config, len(cs))
	for k, c := range cs {
		x := *c
		x.Summary = m[k]
		cp[k] = &x
	}
	return Collapses(cp)
}

// spinFirst reads the collapse figures: whether spin collapses strictly
// before every sleeping mechanism, the one that degrades first, and ok
// false without spin and a sleeping mechanism to compare.
func spinFirst(cs []Collapse) (holds bool, first string, ok bool) {
	i := slices.IndexFunc(cs, func(c Collapse) bool { return c.Impl == "spin" })
	if i < 0 || len(cs) < 2 {
		return false, "", false
	}
	f, holds := cs[0], true
	for _, c := range cs {
		if earlier(c, f) {
			f = c
		}
		holds = holds && (c.Impl == "spin" || earlier(cs[i], c))
	}
	return holds, f.Impl, true
}
