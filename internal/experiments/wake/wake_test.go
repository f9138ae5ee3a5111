package wake

import (
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/results"
)

// tiny is a run that exercises every bench of every implementation in well
// under a second.
func tiny() Options {
	o := QuickOptions()
	o.Threads = []int{4}
	o.HashThreads = []int{1, 2}
	o.Wakes = []int{1, 2, 0}
	o.Wakers = []int{2}
	o.Requeues = []int{1, 0}
	o.Runs = 2
	o.Settle = 0
	o.HashTime = 5 * time.Millisecond
	o.HashRounds = 1
	o.Items = 2000
	o.PCRounds = 1
	return o
}

func TestRunEveryBench(t *testing.T) {
	exp := drivertest.Run(t, Run, tiny())
	seen := map[string]bool{}
	for _, c := range exp.Configs {
		seen[c.Params["bench"]] = true
		switch c.Params["bench"] {
		case BenchHash:
			// A 5 ms round on a loaded machine may not finish one pass:
			// only the operations that did not fail at once are wrong.
			if _, ok := c.Summary[MOpsPerSec]; !ok || c.Summary[MUnexpected] != 0 {
				t.Errorf("%s: %v", c.Key, c.Summary)
			}
		case BenchCondvar:
			if c.Summary[MItemsPerSec] <= 0 {
				t.Errorf("%s: %v", c.Key, c.Summary)
			}
		default:
			if c.Summary[MWakerMean] <= 0 || len(c.Rounds) != 2 {
				t.Errorf("%s: %v, %d rounds", c.Key, c.Summary, len(c.Rounds))
			}
			if w, ok := c.Summary[MWoken]; ok && w != 4 {
				t.Errorf("%s: woken %v, want 4", c.Key, w)
			}
		}
		t.Logf("%-36s %v", c.Key, c.Summary[MWakerMean]+c.Summary[MOpsPerSec]+c.Summary[MItemsPerSec])
	}
	for _, b := range Benches {
		if !seen[b] {
			t.Errorf("bench %s did not run", b)
		}
	}
	for _, cl := range exp.Claims {
		t.Logf("%s: %s: %s", cl.ID, cl.Verdict, cl.Evidence)
	}
}

func TestMeanSEM(t *testing.T) {
	m, s := meanSEM([]float64{2, 4, 6})
	// mean 4, sample sd 2, SEM 2/sqrt(3) = 1.1547, 28.87% of 4
	if m != 4 || s < 28.86 || s > 28.88 {
		t.Errorf("meanSEM = %v, %v", m, s)
	}
	if _, s := meanSEM([]float64{5}); s != 0 {
		t.Errorf("one value: %v%%", s)
	}
}

var _ = results.Holds
