package latency

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// goCfg is a goroutine configuration at GOMAXPROCS procs with a median
// and, when wakes > 0, the traced round's shares.
func goCfg(impl string, procs int, median, wakes, sameP, otherP, woken float64) *results.Config {
	c := cfg(impl, KindGoroutine, driver.Unpinned, true, median, 0, 2000, 0)
	c.Key = impl + "/goroutines"
	c.Params["participants"] = driver.Goroutines
	c.Params["gomaxprocs"] = strconv.Itoa(procs)
	if wakes > 0 {
		c.Summary[schedacct.MWakesPerRT] = wakes
		c.Summary[schedacct.MWakeSameP], c.Summary[schedacct.MWakeOtherP], c.Summary[schedacct.MWakeThreadWoken] = sameP, otherP, woken
	}
	return c
}

func thrCfg(impl, placement string, procs int, median float64) *results.Config {
	c := cfg(impl, KindGoroutine, placement, true, median, 0, 2000, 2)
	c.Params["participants"] = driver.Threads
	c.Params["gomaxprocs"] = strconv.Itoa(procs)
	return c
}

// Shaped like the AMD EPYC guest's run: chan 24 µs between locked threads
// across CPUs, 0.17 µs between goroutines.
func TestClaimGoroutineHandoff(t *testing.T) {
	pass := lat(thrCfg("chan", driver.CrossCore, 2, 24000), thrCfg("chan", driver.Unpinned, 2, 1200), goCfg("chan", 2, 170, 2, 1, 0, 0))
	claimtest.Want(t, "140x", claim.Evaluate(goroutineHandoffRule, pass.Configs), results.Holds)
	// The twin is cross-core even when unpinned is listed first.
	if c := claim.Evaluate(goroutineHandoffRule, pass.Configs); c.Verdict == results.Holds && !containsAll(c.Evidence, "cross-core", "141.18x") {
		t.Errorf("evidence %q: want the cross-core twin's ratio", c.Evidence)
	}
	fail := lat(thrCfg("cond", driver.CrossCore, 1, 300), goCfg("cond", 1, 200, 2, 1, 0, 0))
	claimtest.Want(t, "1.5x", claim.Evaluate(goroutineHandoffRule, fail.Configs), results.DoesNotHold)
	// Different GOMAXPROCS are not compared; lot (kind lot) is not a
	// goroutine-level handoff.
	none := lat(thrCfg("chan", driver.CrossCore, 1, 24000), goCfg("chan", 2, 170, 2, 1, 0, 0))
	if c := claim.Evaluate(goroutineHandoffRule, none.Configs); c.Verdict != results.NotEvaluated {
		t.Errorf("different GOMAXPROCS: verdict %q, want not evaluated", c.Verdict)
	}
}

func TestClaimGoMaxProcs1(t *testing.T) {
	pass := lat(goCfg("chan", 1, 170, 2, 1, 0, 0), goCfg("cond", 1, 180, 2, 1, 0, 0), goCfg("chan", 2, 160, 2, 0.7, 0.2, 0.1))
	claimtest.Want(t, "all on the waker's P", claim.Evaluate(goMaxProcs1Rule, pass.Configs), results.Holds)
	fail := lat(goCfg("chan", 1, 170, 2, 0.98, 0, 0.02))
	claimtest.Want(t, "a thread woken", claim.Evaluate(goMaxProcs1Rule, fail.Configs), results.DoesNotHold)
	fail2 := lat(goCfg("cond", 1, 170, 2, 0.9, 0.1, 0))
	claimtest.Want(t, "another P", claim.Evaluate(goMaxProcs1Rule, fail2.Configs), results.DoesNotHold)
	// lot's wakes are futex wakes: no shares, not evaluated.
	if c := claim.Evaluate(goMaxProcs1Rule, lat(goCfg("lot", 1, 2400, 0, 0, 0, 0)).Configs); c.Verdict != results.NotEvaluated {
		t.Errorf("no traced wakes: verdict %q, want not evaluated", c.Verdict)
	}
}

// The thread claims never see goroutine rows: a goroutine row 100x below
// the thread rows must not fail same-order.
func TestThreadClaimsIgnoreGoroutines(t *testing.T) {
	e := lat(cfg("futex", "thread", driver.CrossCore, true, 20000, 10, 2000, 2), cfg("std", "thread", driver.CrossCore, true, 22000, 10, 2000, 2),
		goCfg("mutex-sema", 2, 200, 2, 1, 0, 0))
	e.Configs[2].Kind = "lot" // as a lot row would be: sleeping, thread-level kind
	if c := sameOrder(e); c.Verdict != results.Holds || strings.Contains(c.Evidence, "mutex-sema") {
		t.Errorf("same-order read the goroutine row: %q (%s)", c.Verdict, c.Evidence)
	}
}

func containsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// A tiny goroutine run of every goroutine mechanism at two GOMAXPROCS:
// every configuration finishes, records what ran it and the traced
// round's wakes, and GOMAXPROCS is back afterwards. Counts, no times.
func TestRunLatencyGoroutines(t *testing.T) {
	longtest.Skip(t)
	before := runtime.GOMAXPROCS(0)
	o := tinyLatency("chan", "cond", ImplLot, ImplMutexSema, ImplRWMutexSema, ImplWaitGroup)
	o.Participants = []string{driver.Goroutines}
	o.GOMAXPROCS = []int{1, 2}
	o.SchedCounts = false // goroutine rows trace anyway
	exp := drivertest.Run(t, RunLatency, o)
	if got := runtime.GOMAXPROCS(0); got != before {
		t.Errorf("GOMAXPROCS %d after the run, %d before", got, before)
	}
	if len(exp.Configs) != 12 {
		t.Fatalf("%d configurations, want 12", len(exp.Configs))
	}
	for _, c := range exp.Configs {
		if c.Params["participants"] != driver.Goroutines || !strings.Contains(c.Key, "/goroutines/procs="+c.Params["gomaxprocs"]) {
			t.Errorf("%s: params %v", c.Key, c.Params)
		}
		// lot's wakes are futex wakes of the M: the trace sees none. The
		// others' go through the scheduler, except that sync.Mutex (under
		// mutex-sema and rwmutex-sema) spins before it parks when
		// GOMAXPROCS > 1 (golang/go src/sync/mutex.go lockSlow,
		// runtime_canSpin), and a run this short may hand over by the
		// spin alone: a traced round with no wake at all (CI saw one).
		_, traced := c.Summary[schedacct.MWakesPerRT]
		mayNotPark := (c.Impl == ImplMutexSema || c.Impl == ImplRWMutexSema) && c.Params["gomaxprocs"] != "1"
		if c.Impl == ImplLot && traced || c.Impl != ImplLot && !traced && !mayNotPark {
			t.Errorf("%s: traced wakes %v (lot's are futex wakes: none; the others' all)", c.Key, traced)
		}
	}
	if exp.Runtime.LockOSThread {
		t.Error("runtime says threads were locked; only goroutines ran")
	}
}
