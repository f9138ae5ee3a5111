package lock

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs.
const (
	ClaimFaster   = "lock-faster-under-contention"
	ClaimSpin     = "lock-spin-loses-oversubscribed"
	ClaimLotFair  = "lock-lot-eventual-fairness"
	ClaimSyncFair = "lock-sync-starvation-bound"
	// ClaimRwWriters is --rwlock's claim.
	ClaimRwWriters = "rwlock-writers-progress"
)

// fairSlack is what the fairness claims allow beyond 1 ms + the hold: one
// more millisecond for the wake itself and for the loaded machine.
const fairSlack = time.Millisecond

// minRepeats is the repeats a throughput ratio needs to be decided;
// fairMinRepeats those a largest-wait bound needs (fairRule).
const (
	minRepeats     = 2
	fairMinRepeats = 3
)

// Claims evaluates the claims from the configurations of one run. numCPU
// is the machine's logical CPU count (threads above it oversubscribe).
//
// The thread claims read the thread configurations only; the goroutine
// ones (--participants=goroutines) have their own claim (goroutines.go).
func Claims(all []*results.Config, numCPU int) []results.Claim {
	configs := slices.DeleteFunc(slices.Clone(all), isGoroutines)
	return append(claim.EvaluateAll(configs,
		ratioRule(ClaimFaster, "parking_lot README.md:19-21: its Mutex is faster than std's when contended (std's was then a pthread_mutex_t, now the futex mutex): lot's total throughput above std-futex's and c-pthread's at 2+ threads",
			"needs lot with std-futex or c-pthread at 2 or more threads in the loop pattern", 2, "lot", []string{"std-futex", "c-pthread"}, claim.Figure.Above),
		ratioRule(ClaimSpin, fmt.Sprintf("lock-bench: a spin lock loses to a parking mutex once threads outnumber cores (spin's total throughput below lot's above %d threads)", numCPU),
			fmt.Sprintf("needs spin and lot above %d threads in the loop pattern", numCPU), numCPU+1, "spin", []string{"lot"}, claim.Figure.Below),
		fairRule(numCPU, "lot", ClaimLotFair,
			"parking_lot's eventual fairness (a fair unlock on average every 0.5 ms, parking_lot core/src/parking_lot.rs:130 FairTimeout::should_timeout): lot's max wait stays near 1 ms plus the hold"),
		fairRule(numCPU, "sync", ClaimSyncFair,
			"Go's starvation mode (a waiter that waited over 1 ms gets the lock handed to it, Go src/internal/sync/mutex.go:55 starvationThresholdNs): sync's max wait stays near 1 ms plus the hold"),
		piRule,
	), append(FidelityClaims(configs), goClaims(all, numCPU)...)...)
}

// groupKey is a configuration's key without its implementation.
func groupKey(c *results.Config) string {
	return strings.TrimPrefix(strings.TrimPrefix(c.Key, c.Impl), "/")
}

// twin is impl's configuration in o's group, nil when it did not run.
func twin(cs []*results.Config, o *results.Config, impl string) *results.Config {
	return claim.Find(cs, func(c *results.Config) bool { return c.Impl == impl && groupKey(c) == groupKey(o) })
}

// byName orders figures by name: the evidence's order.
func byName(x, y claim.Figure) int { return strings.Compare(x.Name, y.Name) }

// looping selects the loop pattern from minThreads threads.
func looping(minThreads int) func(*results.Config) bool {
	return func(c *results.Config) bool {
		return c.Params["pattern"] == "loop" && c.IntParam("threads") >= minThreads
	}
}

// ratioRule: each repeat's ratio carries the run's noise (claim.Figure.Noisy
// over every two repeats of the claim's configurations): the repeats of a
// group run back to back and agree with each other more than runs do
// (lot/std-futex 1.24x, 1.38x, then 0.96x, 0.98x: docs/lock.md). One repeat
// alone is near its limit.
func ratioRule(id, statement, needs string, minThreads int, impl string, others []string, bound func(claim.Figure, float64) claim.Figure) claim.Rule {
	return claim.Rule{ID: id, Statement: statement, Needs: needs, MinRounds: minRepeats, Select: looping(minThreads),
		How: fmt.Sprintf("per group, %s's total throughput over the other's in each repeat, each ± the run's noise (how far apart two repeats of one configuration are: the median over this claim's configurations)", impl),
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			apart := claim.RoundsApart(cs, MTotalMops)
			for _, o := range cs {
				if c := twin(cs, o, impl); c != nil && slices.Contains(others, o.Impl) {
					f := claim.Ratio(groupKey(o)+" "+impl+"/"+o.Impl, c, o, MTotalMops).
						Noisy(apart, fmt.Sprintf("the run's noise over %d pairs of repeats", len(apart))).
						With(fmt.Sprintf("%s %.2f vs %s %.2f Mops", impl, c.Summary[MTotalMops], o.Impl, o.Summary[MTotalMops]))
					out = append(out, bound(f, 1))
				}
			}
			slices.SortFunc(out, byName)
			return out
		}}
}

// holdNs is the time a configuration holds the lock per acquisition.
func holdNs(c *results.Config) float64 {
	if d, err := time.ParseDuration(c.Params["hold_sleep"]); err == nil && d > 0 {
		return float64(d)
	}
	return float64(c.IntParam("work_in_iters")) * c.FloatParam("work_unit_ns")
}

// fairRule: a repeat's largest wait is one extreme of a few hundred
// sampled waits, which one preempted holder delays: fewer than
// fairMinRepeats repeats (the default suite's two) are near their limit,
// and `parkbench lock`'s three decide (sync's at t=2 read 0.47 ms, then
// 3.39 ms, in two quiet default runs: docs/findings.md).
func fairRule(numCPU int, impl, id, statement string) claim.Rule {
	return claim.Rule{ID: id, Statement: statement, MinRounds: fairMinRepeats,
		Needs: fmt.Sprintf("needs %s at 2 to %d threads (above, waits include the scheduler's slices)", impl, numCPU),
		How:   fmt.Sprintf("each repeat's largest sampled wait (1 in %d waits is sampled) against 1 ms + hold + %v", SampleEvery, fairSlack),
		Select: func(c *results.Config) bool {
			return c.Impl == impl && c.IntParam("threads") >= 2 && c.IntParam("threads") <= numCPU
		},
		Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
			return []claim.Figure{claim.Fig(c.Key+" max wait", claim.Values(c, MWaitMax), c).In("ms").AtMost(float64(time.Millisecond+fairSlack) + holdNs(c))}
		}}
}

// RwClaims evaluates the rwlock claim on every configuration with writers
// and readers.
func RwClaims(configs []*results.Config) []results.Claim {
	return []results.Claim{claim.Evaluate(claim.Rule{ID: ClaimRwWriters,
		Statement: "writers make progress under a steady read load, for every implementation (write_mops > 0 and every writer thread acquired the lock at least once, in every repeat)",
		Needs:     "needs a configuration with at least one reader and one writer",
		Select: func(c *results.Config) bool {
			return c.Params["pattern"] == "rwlock" && c.Params["writers"] != "0" && c.Params["readers"] != "0"
		},
		Each: func(c *results.Config, _ []*results.Config) []claim.Figure {
			var stalled []string
			for i, r := range c.Rounds {
				if wm, least := r.Metrics[MWriteMops], r.Metrics[MWriterMin]; !(wm > 0) || !(least >= 1) || math.IsNaN(least) {
					stalled = append(stalled, fmt.Sprintf("repeat %d: write_mops %.4f, least writer %.0f acquisitions", i+1, wm, least))
				}
			}
			if len(c.Rounds) == 0 {
				return nil
			}
			return []claim.Figure{claim.Fig(c.Key+" repeats where a writer stalled", []float64{float64(len(stalled))}, c).AtMost(0).With(strings.Join(stalled, ", "))}
		}}, configs)}
}
