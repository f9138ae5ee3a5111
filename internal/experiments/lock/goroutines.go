package lock

import (
	"fmt"
	"runtime"
	"slices"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// The lock benchmark between plain goroutines (--participants=goroutines):
// the same loop (loop.go) on goroutines that are not locked to their
// threads, so a contended Lock parks the goroutine (sync: the runtime's
// semaphore, sema.go semacquire1; a wake is semrelease1, handing the lock
// over directly in starvation mode) instead of a thread. lot and
// std-futex still park the thread under the goroutine (their parkers are
// OS waits): the goroutine keeps its M blocked, and its P is retaken by
// sysmon or handed off (docs/scheduler.md).

// lockThreadsOnly is why im cannot run between plain goroutines.
func lockThreadsOnly(im impl) string {
	switch {
	case im.c:
		return "the loop runs in C threads, outside the Go scheduler"
	case im.name == "pthread":
		return "a pthread mutex must be unlocked by the thread that locked it, and a plain goroutine may move to another thread in between"
	case im.plugin:
		return "a plugin's mutex must be unlocked by the thread that locked it (include/parkbench.h), and a plain goroutine may move to another thread in between"
	case im.name == "pi-futex" || im.name == "pthread-pi":
		return "a PI lock's owner is a thread (its TID is the futex word, the kernel checks it on unlock), and a plain goroutine may move to another thread in between"
	}
	return ""
}

// resolveParticipants resolves the implementations once per kind of
// participants: the goroutine ones are copies marked goroutines, keyed
// impl/goroutines/....
func resolveParticipants(o Options) (driver.Selection[impl], error) {
	return driver.ResolveByParticipants(o.Participants, o.Impls, catalog(), lockThreadsOnly, func(_ []string, part string, im impl) (impl, bool) {
		im.goroutines = part == driver.Goroutines
		return im, true
	})
}

// label is the implementation as a key names it: impl, or impl/goroutines.
func (im impl) label() string { return driver.KeyName(im.name, im.goroutines) }

func participants(im impl) string { return driver.KindOf(im.goroutines) }

// procsOf is the GOMAXPROCS a group ran under (read after the run: the
// run's own when the group has none).
func procsOf(g group) int {
	if g.procs > 0 {
		return g.procs
	}
	return runtime.GOMAXPROCS(0)
}

// isGoroutines reports whether c ran between plain goroutines.
func isGoroutines(c *results.Config) bool { return c.Params["participants"] == driver.Goroutines }

// goClaims are the goroutine claims of a run that has goroutine rows
// (none otherwise, as fidelity's without the original).
func goClaims(configs []*results.Config, numCPU int) []results.Claim {
	if !slices.ContainsFunc(configs, isGoroutines) {
		return nil
	}
	return []results.Claim{claim.Evaluate(goFairRule(numCPU), configs)}
}

// ClaimGoFair is the goroutine claim.
const ClaimGoFair = "lock-goroutines-starvation-vs-eventual"

const stmtGoFair = "on plain goroutines, sync.Mutex's handoff in starvation mode (a waiter that waited over 1 ms gets the lock " +
	"handed to it: Go src/internal/sync/mutex.go starvationThresholdNs, runtime sema.go semrelease1 with handoff) and lot's " +
	"eventual fairness (a fair unlock about every 0.5 ms) both bound the longest sampled wait near 1 ms plus the hold, " +
	"at 2 goroutines up to the CPUs"

// goFairRule judges sync and lot on the goroutine configurations with
// fairRule's figures (each repeat's largest sampled wait against 1 ms +
// hold + slack, at 2 to numCPU goroutines: above, a waiter also waits for
// a CPU), both needed, and puts the two side by side with their fairness
// (Jain's index, min/max) in the evidence.
func goFairRule(numCPU int) claim.Rule {
	r := fairRule(numCPU, "", ClaimGoFair, stmtGoFair)
	r.Needs = fmt.Sprintf("needs sync and lot on goroutines at 2 to %d goroutines", numCPU)
	r.Select = func(c *results.Config) bool {
		t := c.IntParam("threads")
		return isGoroutines(c) && (c.Impl == "sync" || c.Impl == "lot") && t >= 2 && t <= numCPU
	}
	each := r.Each
	r.Each = func(c *results.Config, cs []*results.Config) []claim.Figure {
		if !slices.ContainsFunc(cs, func(c *results.Config) bool { return c.Impl == "sync" }) || !slices.ContainsFunc(cs, func(c *results.Config) bool { return c.Impl == "lot" }) {
			return nil
		}
		return each(c, cs)
	}
	r.Context = func(cs []*results.Config) (side []string) {
		for _, c := range cs {
			side = append(side, fmt.Sprintf("%s: Jain %.2f, min/max %.2f", c.Key, c.Summary[MJain], c.Summary[MMinMax]))
		}
		return side
	}
	return r
}
