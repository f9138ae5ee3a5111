package latency

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// The goroutine claims (docs/experiments.md, "goroutines"): pure functions
// of the result, like every claim here.
const (
	ClaimGoHandoff = "E12-goroutine-handoff"
	ClaimGoProcs1  = "E12-gomaxprocs1-no-thread-wake"
)

const (
	stmtGoHandoff = "a handoff between plain goroutines costs far less than the same handoff between locked threads " +
		"(threads median >= 2x goroutines median, per goroutine-level mechanism and GOMAXPROCS): the woken goroutine " +
		"runs from the waker's runnext when the waker blocks, and no thread sleeps or wakes"
	stmtGoProcs1 = "with GOMAXPROCS = 1 no thread is woken for a wake between goroutines (wake_thread_woken_share = 0 " +
		"and wake_other_p_share = 0 in the traced round): with one P, wakep finds no idle P to start an M on"
	// goHandoffFactor: "far less" is at least this ratio.
	goHandoffFactor = 2.0
)

// GoroutineClaims are the claims about goroutine participants.
func GoroutineClaims(lat *results.Experiment) []results.Claim {
	return []results.Claim{ClaimGoroutineHandoff(lat), ClaimGoMaxProcs1(lat)}
}

// isGoroutines reports whether cfg ran between plain goroutines.
func isGoroutines(cfg *results.Config) bool { return cfg.Params["participants"] == driver.Goroutines }

// threadsView is lat with its thread configurations only: the thread
// claims were written for them (a result from before participants
// existed has no such parameter and is all threads).
func threadsView(lat *results.Experiment) *results.Experiment {
	if !slices.ContainsFunc(lat.Configs, isGoroutines) {
		return lat
	}
	v := *lat
	v.Configs = slices.DeleteFunc(slices.Clone(lat.Configs), isGoroutines)
	return &v
}

// threadTwin is the thread configuration an goroutine configuration is
// compared with: same implementation and GOMAXPROCS, gap 0, cross-core
// first (the wake the issue measured), then unpinned, then same-core.
func threadTwin(lat *results.Experiment, g *results.Config) *results.Config {
	for _, pl := range []string{driver.CrossCore, driver.Unpinned, driver.SameCore} {
		for _, c := range lat.Configs {
			if !isGoroutines(c) && c.Impl == g.Impl && c.Placement == pl && gapZero(c) &&
				c.Params["gomaxprocs"] == g.Params["gomaxprocs"] && c.Summary[results.MMedian] > 0 {
				return c
			}
		}
	}
	return nil
}

// ClaimGoroutineHandoff compares each goroutine-level mechanism (kind
// goroutine: chan, cond, the sync semaphores) between goroutines with the
// same mechanism between locked threads.
func ClaimGoroutineHandoff(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimGoHandoff, Statement: stmtGoHandoff, Verdict: results.NotEvaluated}
	var parts, low []string
	for _, g := range lat.Configs {
		if !isGoroutines(g) || g.Kind != KindGoroutine || g.Summary[results.MMedian] <= 0 {
			continue
		}
		t := threadTwin(lat, g)
		if t == nil {
			continue
		}
		ratio := t.Summary[results.MMedian] / g.Summary[results.MMedian]
		line := fmt.Sprintf("%s at gomaxprocs %s: %s (%s) / %s = %.1fx", g.Impl, g.Params["gomaxprocs"],
			fmtNs(t.Summary[results.MMedian]), t.Placement, fmtNs(g.Summary[results.MMedian]), ratio)
		parts = append(parts, line)
		if ratio < goHandoffFactor {
			low = append(low, line)
		}
	}
	return settle(c, parts, low,
		"needs a goroutine-level mechanism (chan, cond) measured with both threads and goroutines at one GOMAXPROCS",
		"threads median / goroutines median, want >= 2x: ",
		"under 2x (rule: threads median >= 2x goroutines median): ")
}

// settle gives c its verdict from the lines measured (parts) and those
// that broke the rule (bad): not evaluated with none, holds with no bad
// one; the evidence and the why list them after their prefixes.
func settle(c results.Claim, parts, bad []string, missing, evidence, why string) results.Claim {
	if len(parts) == 0 {
		c.Evidence = missing
		return c
	}
	c.Verdict = verdict(len(bad) == 0)
	c.Evidence = evidence + strings.Join(parts, "; ")
	if len(bad) > 0 {
		c.Why = why + strings.Join(bad, "; ")
	}
	return c
}

// ClaimGoMaxProcs1 reads the traced round's wake shares of the goroutine
// configurations run at GOMAXPROCS = 1.
func ClaimGoMaxProcs1(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimGoProcs1, Statement: stmtGoProcs1, Verdict: results.NotEvaluated}
	var parts, bad []string
	for _, g := range lat.Configs {
		if !isGoroutines(g) || g.Params["gomaxprocs"] != "1" {
			continue
		}
		if _, ok := g.Summary[MWakesPerRT]; !ok {
			continue // no wake through the scheduler (lot's is a futex wake of the M)
		}
		woken, other := g.Summary[MWakeThreadWoken], g.Summary[MWakeOtherP]
		line := fmt.Sprintf("%s: %.0f%% on the waker's P, %.0f%% another P, %.0f%% a thread woken", g.Impl,
			100*g.Summary[MWakeSameP], 100*other, 100*woken)
		if v, ok := g.Summary[results.MCtxSwSelf]; ok {
			line += fmt.Sprintf(", %.2f process switches/rt", v)
		}
		parts = append(parts, line)
		if woken > 0 || other > 0 {
			bad = append(bad, line)
		}
	}
	return settle(c, parts, bad,
		"needs a goroutine configuration at GOMAXPROCS 1 whose wakes went through the scheduler (chan, cond, the sync semaphores), with its traced round",
		"traced round at GOMAXPROCS 1: ",
		"a wake ran off the waker's P or needed a thread (rule: both shares 0): ")
}
