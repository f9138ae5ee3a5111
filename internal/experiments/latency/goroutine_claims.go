package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// The goroutine claims (docs/experiments.md, "goroutines"): pure functions
// of the result, like every claim here. goHandoffFactor: "far less" is at
// least this ratio.
const goHandoffFactor = 2.0

// isGoroutines reports whether cfg ran between plain goroutines.
func isGoroutines(cfg *results.Config) bool { return cfg.Params["participants"] == driver.Goroutines }

// threadTwin is the thread configuration among cs a goroutine
// configuration is compared with: same implementation and GOMAXPROCS, gap
// 0, cross-core first (the wake the issue measured), then unpinned, then
// same-core.
func threadTwin(cs []*results.Config, g *results.Config) *results.Config {
	for _, pl := range []string{driver.CrossCore, driver.Unpinned, driver.SameCore} {
		for _, c := range cs {
			if !isGoroutines(c) && c.Impl == g.Impl && c.Placement == pl && gapZero(c) &&
				c.Params["gomaxprocs"] == g.Params["gomaxprocs"] && c.Summary[results.MMedian] > 0 {
				return c
			}
		}
	}
	return nil
}

// goroutineHandoffRule: a goroutine-level mechanism is of kind goroutine
// (chan, cond, the sync semaphores).
var goroutineHandoffRule = claim.Rule{ID: "E12-goroutine-handoff", Statement: "a handoff between plain goroutines costs far less than the same handoff between locked threads " +
	"(threads median >= 2x goroutines median, per goroutine-level mechanism and GOMAXPROCS): the woken goroutine " +
	"runs from the waker's runnext when the waker blocks, and no thread sleeps or wakes",
	Needs: "needs a goroutine-level mechanism (chan, cond) measured with both threads and goroutines at one GOMAXPROCS",
	Each: func(g *results.Config, cs []*results.Config) []claim.Figure {
		if t := threadTwin(cs, g); isGoroutines(g) && g.Kind == KindGoroutine && g.Summary[results.MMedian] > 0 && t != nil {
			name := fmt.Sprintf("%s at gomaxprocs %s: %s (%s) / %s", g.Impl, g.Params["gomaxprocs"], fmtNs(t.Summary[results.MMedian]), t.Placement, fmtNs(g.Summary[results.MMedian]))
			return []claim.Figure{claim.Ratio(name, t, g, results.MMedian).AtLeast(goHandoffFactor)}
		}
		return nil
	}}

// goMaxProcs1Rule: a configuration without wakes through the scheduler
// (lot's is a futex wake of the M) has no wake shares to read.
var goMaxProcs1Rule = claim.Rule{ID: "E12-gomaxprocs1-no-thread-wake", Statement: "with GOMAXPROCS = 1 no thread is woken for a wake between goroutines (wake_thread_woken_share = 0 " +
	"and wake_other_p_share = 0 in the traced round): with one P, wakep finds no idle P to start an M on",
	Needs: "needs a goroutine configuration at GOMAXPROCS 1 whose wakes went through the scheduler (chan, cond, the sync semaphores), with its traced round",
	Select: func(g *results.Config) bool {
		_, ok := g.Summary[schedacct.MWakesPerRT]
		return isGoroutines(g) && g.Params["gomaxprocs"] == "1" && ok
	},
	Each: func(g *results.Config, _ []*results.Config) []claim.Figure {
		note := fmt.Sprintf("%.0f%% on the waker's P", 100*g.Summary[schedacct.MWakeSameP])
		if v, ok := g.Summary[results.MCtxSwSelf]; ok {
			note += fmt.Sprintf(", %.2f process switches/rt", v)
		}
		return []claim.Figure{claim.Fig(g.Impl+" wakes on another P", []float64{g.Summary[schedacct.MWakeOtherP]}, g).In("%").AtMost(0).With(note),
			claim.Fig(g.Impl+" wakes that woke a thread", []float64{g.Summary[schedacct.MWakeThreadWoken]}, g).In("%").AtMost(0)}
	}}

// threads selects the thread configurations the thread claims were written
// for (a result from before participants existed is all threads).
func threads(c *results.Config) bool { return !isGoroutines(c) }
