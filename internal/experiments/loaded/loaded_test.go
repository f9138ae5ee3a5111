package loaded

import (
	"context"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/longtest"
)

func tiny() Options {
	o := QuickOptions()
	o.Loads = []int{5, 50}
	o.Multiples = []int{2}
	o.Warmup = 10 * time.Millisecond
	o.Duration = 40 * time.Millisecond
	return o
}

func TestRunEveryMechanism(t *testing.T) {
	longtest.Skip(t)
	exp, err := Run(context.Background(), tiny(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// No figure is asserted: a loaded two-CPU machine may complete no
	// request of a starved configuration inside a 40 ms window. The run
	// must end (no lost wakeup) and describe every configuration.
	runs := 0 // the mechanisms that run here (off Linux: no futex, no pthread)
	for _, im := range Impls() {
		if im.Why == "" {
			runs++
		}
	}
	if want := runs * 4; len(exp.Configs) != want {
		t.Errorf("%d configurations, want %d", len(exp.Configs), want)
	}
	for _, c := range exp.Configs {
		if _, ok := c.Summary[MRPS]; !ok {
			t.Errorf("%s: no rps in %v", c.Key, c.Summary)
		}
		// compare judges a figure over the rounds: each round has it.
		for _, m := range Metrics {
			if _, ok := c.Summary[m.Key]; ok && m.Judged {
				for i, r := range c.Rounds {
					if _, ok := r.Metrics[m.Key]; !ok {
						t.Errorf("%s round %d lacks judged %s", c.Key, i, m.Key)
					}
				}
			}
		}
		t.Logf("%-34s rps %8.0f wake p50 %7.1f p99 %8.1f µs req p99 %8.1f µs drop %v left %v cpu %.2f", c.Key, c.Summary[MRPS],
			c.Summary[MWakeP50]/1e3, c.Summary[MWakeP99]/1e3, c.Summary[MReqP99]/1e3, c.Summary[MDropped], c.Summary[MUnfinished], c.Summary[MCPUBusy])
	}
	for _, n := range exp.Notes {
		t.Log(n)
	}
	for _, cl := range exp.Claims {
		t.Logf("%s: %s: %s", cl.ID, cl.Verdict, cl.Evidence)
	}
}
