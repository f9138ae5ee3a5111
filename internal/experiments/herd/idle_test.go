package herd

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/results"
)

func idleOptions() Options {
	o := QuickOptions()
	o.Mode, o.Requests, o.Repeats, o.Waiters = ModeIdle, 5, 1, []int{1, 4}
	return o
}

func TestIdleOptions(t *testing.T) {
	drivertest.WantRefused(t, idleOptions, []drivertest.Bad[Options]{
		{Field: "Mode", Want: `unknown mode "lazy"`, Edit: func(o *Options) { o.Mode = "lazy" }},
		{Field: "Requests", Want: "invalid requests 0", Edit: func(o *Options) { o.Requests = 0 }},
		{Field: "Notify", Want: "side by side", Edit: func(o *Options) { o.Notify = []string{ModeOneLoop} }},
		{Field: "Participants", Want: "locked threads", Edit: func(o *Options) { o.Participants = []string{driver.Goroutines} }},
		{Field: "Anatomy", Want: "herd mode only", Edit: func(o *Options) { o.Anatomy = true }},
	})
	// The herd's own mode echoes as it always did: no mode, no requests.
	o := DefaultOptions()
	p, err := plan(o)
	if err != nil {
		t.Fatal(err)
	}
	m := p.o.asMap(p.Items)
	if _, ok := m["mode"]; ok {
		t.Errorf("the herd's echo has a mode: %v", m)
	}
	if _, ok := m["requests"]; ok {
		t.Errorf("the herd's echo has requests: %v", m)
	}
}

// TestIdleRun runs the pool at N = 1 and 4, every wake of every Go
// implementation: each request is taken, notify_one wastes no wake, and a
// pool of one wastes none whatever the wake.
func TestIdleRun(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	if driver.NeedFutex() != nil {
		t.Skip("the futex rows are Linux only")
	}
	exp, err := Run(context.Background(), idleOptions(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(exp.Configs) != 2*6 {
		t.Fatalf("%d configurations, want 12", len(exp.Configs))
	}
	for _, c := range exp.Configs {
		w := c.Summary[MWastedWakes]
		if c.Summary[results.MSamples] != 5 {
			t.Errorf("%s: %v requests timed", c.Key, c.Summary[results.MSamples])
		}
		if (c.Params["wake"] == wakeOne || c.IntParam("n") == 1) && w != 0 {
			t.Errorf("%s: %v wasted wakes per request", c.Key, w)
		}
	}
}

// lossyPrim is lot's condvar whose notifies do nothing: every request is
// lost.
type lossyPrim struct{ lotPrim }

func (p *lossyPrim) NotifyOne(bool) notifyOut { return notifyOut{-1, -1, -1} }
func (p *lossyPrim) NotifyAll(bool) notifyOut { return notifyOut{-1, -1, -1} }

func TestIdleLostWakeup(t *testing.T) {
	im := implSpec{name: "lossy", kind: "thread", newPrim: func() primitive { return &lossyPrim{} }}
	start := time.Now()
	_, err := runPool(context.Background(), idleRow{im, wakeOne}, 3, 3, true, -1, nil)
	if err == nil || !strings.Contains(err.Error(), "lost wakeup: lossy wake=one N=3: request 0 not taken") {
		t.Fatalf("want a lost wakeup naming lossy, got %v", err)
	}
	if took := time.Since(start); took > 3*settleBound(3) {
		t.Errorf("took %v", took)
	}
}

// idleCfg is one synthetic idle configuration with per-round latencies.
func idleCfg(impl, wake string, n int, lats ...float64) *results.Config {
	c := &results.Config{Key: fmt.Sprintf("%s/unpinned/idle/wake=%s/lock-held=true/n=%d", impl, wake, n), Impl: impl, Placement: "unpinned",
		Params: map[string]string{"mode": ModeIdle, "wake": wake, "n": fmt.Sprint(n), "lock_held": "true"}, Summary: map[string]float64{}}
	for _, l := range lats {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{results.MMedian: l}})
	}
	c.Summary[results.MMedian] = lats[len(lats)/2]
	return c
}

func TestIdleClaim(t *testing.T) {
	cfgs := func(ratio64 float64) []*results.Config {
		return []*results.Config{
			idleCfg("futex-broadcast", wakeOne, 1, 10, 10, 10), idleCfg("futex-broadcast", wakeAll, 1, 10, 10, 10),
			idleCfg("futex-broadcast", wakeOne, 16, 10, 10, 10), idleCfg("futex-broadcast", wakeAll, 16, 20, 20, 20),
			idleCfg("futex-broadcast", wakeOne, 64, 10, 10, 10), idleCfg("futex-broadcast", wakeAll, 64, 10*ratio64, 10*ratio64, 10*ratio64),
			idleCfg("lot", wakeOne, 64, 10, 10, 10), idleCfg("lot-wakeall", wakeAll, 64, 30, 30, 30),
		}
	}
	c := IdleClaims(cfgs(3), 2)[0]
	if c.Verdict != results.Holds || !strings.Contains(c.Evidence, "futex-broadcast unpinned/lock-held=true from N=16") {
		t.Errorf("delayed from N=16: %s (%s)", c.Verdict, c.Evidence)
	}
	c = IdleClaims(cfgs(1.1), 2)[0]
	if c.Verdict != results.DoesNotHold || !strings.Contains(c.Why, "N=64 all/one latency 1.10x") {
		t.Errorf("not delayed at 64: %s (%s)", c.Verdict, c.Why)
	}
	if c := IdleClaims(cfgs(3)[:2], 2)[0]; c.Verdict != results.NotEvaluated {
		t.Errorf("only N=1: %s", c.Verdict)
	}
}

// TestIdleStress serves many requests to small pools, every wake of every
// Go implementation, lock held and not: every request must be taken (the
// settle's bound is the watchdog), and one taker per request.
func TestIdleStress(t *testing.T) {
	if driver.NeedFutex() != nil {
		t.Skip("the futex rows are Linux only")
	}
	requests := 300
	if testing.Short() {
		requests = 30
	}
	rows, _ := idleRows(catalog().Items)
	for _, row := range rows {
		for _, held := range []bool{true, false} {
			for _, n := range []int{1, 3} {
				reqs, err := runPool(context.Background(), row, n, requests, held, -1, nil)
				if err != nil {
					t.Fatalf("%s wake=%s held=%v N=%d: %v", row.im.name, row.wake, held, n, err)
				}
				for i, q := range reqs {
					if q.lat <= 0 || q.wasted > n-1 && row.wake == wakeOne {
						t.Fatalf("%s wake=%s N=%d request %d: latency %d, wasted %d", row.im.name, row.wake, n, i, q.lat, q.wasted)
					}
				}
			}
		}
	}
}
