package lock

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// goFairCfg is impl on goroutines at t goroutines whose repeats' largest
// sampled waits are waits (ns).
func goFairCfg(impl string, t string, waits ...float64) *results.Config {
	c := &results.Config{Key: impl + "/goroutines/in=0s/between=0s/locks=1/t=" + t, Impl: impl, Kind: KindGo,
		Params:  map[string]string{"threads": t, "pattern": "loop", "participants": driver.Goroutines, "gomaxprocs": "2"},
		Summary: map[string]float64{MJain: 0.95, MMinMax: 0.8}}
	for _, w := range waits {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{MWaitMax: w}})
	}
	c.Summary[MWaitMax] = stats.Median(waits)
	return c
}

func claimGoFair(cs []*results.Config, numCPU int) results.Claim {
	return claim.Evaluate(goFairRule(numCPU), cs)
}

// Shapes of the AMD EPYC guest's goroutine runs: sync's starvation handoff
// and lot's fair unlock both keep the longest wait near 1 ms.
func TestClaimGoFair(t *testing.T) {
	pass := []*results.Config{goFairCfg("sync", "2", 1.1e6, 0.9e6, 1.3e6), goFairCfg("lot", "2", 0.8e6, 1.0e6, 0.9e6),
		goFairCfg("lot", "8", 90e6, 120e6, 136e6)} // above the CPUs: not judged
	c := claimGoFair(pass, 2)
	if c.Verdict != results.Holds || c.Evidence == "" {
		t.Errorf("both near 1 ms: %q (%s)", c.Verdict, c.Evidence)
	}
	fail := []*results.Config{goFairCfg("sync", "2", 1.1e6, 0.9e6, 1.3e6), goFairCfg("lot", "2", 6e6, 7e6, 5e6)}
	if c := claimGoFair(fail, 2); c.Verdict != results.DoesNotHold || c.Why == "" {
		t.Errorf("lot at 6 ms: %q why %q", c.Verdict, c.Why)
	}
	// Thread rows are not this claim's, and this claim's rows are not
	// the thread claims'.
	thr := goFairCfg("sync", "2", 9e6, 9e6, 9e6)
	thr.Params["participants"] = driver.Threads
	if c := claimGoFair([]*results.Config{thr, goFairCfg("lot", "2", 1e6)}, 2); c.Verdict != results.NotEvaluated {
		t.Errorf("no sync on goroutines: %q, want not evaluated", c.Verdict)
	}
	for _, cl := range Claims(pass, 2) {
		if cl.ID == ClaimSyncFair && cl.Verdict != results.NotEvaluated {
			t.Errorf("the thread claim %s judged goroutine rows: %q", cl.ID, cl.Verdict)
		}
	}
}

// A lock that needs its locking thread (pthread) or C threads is refused
// by name under goroutines, with the reason, and skipped under all.
func TestGoroutinesRefuseThreadLocks(t *testing.T) {
	o := QuickOptions()
	o.Participants = []string{driver.Goroutines}
	for _, name := range []string{"pthread", "c-pthread"} {
		if !catalog().Runs(name) {
			continue // no cgo here: refused for that reason already
		}
		o.Impls = []string{name}
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), "goroutines as participants") {
			t.Errorf("%s on goroutines: %v, want refused with the reason", name, err)
		}
	}
	o.Impls = []string{driver.All}
	p, err := plan(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range p.Items {
		if im.c || im.name == "pthread" || !im.goroutines {
			t.Errorf("all on goroutines ran %s (goroutines %v)", im.name, im.goroutines)
		}
	}
}
