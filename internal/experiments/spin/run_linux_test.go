package spin

import (
	"context"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// TestRunSmall runs every row at two gaps, one round, and checks the
// result's shape: a configuration per row, gap and placement plus the
// ping-pong, figures in each, the answers and the claims (no timing is
// judged here).
func TestRunSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	o := QuickOptions()
	o.Budgets = []time.Duration{0, 2 * time.Microsecond, Unbounded}
	o.Gaps = []time.Duration{time.Microsecond, 40 * time.Microsecond}
	o.Waits, o.Warmup, o.Rounds, o.PingPong = 20, 2, 1, 20
	exp, err := Run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan(o)
	if err != nil {
		t.Fatal(err)
	}
	want := len(p.placements) * (1 + len(o.Gaps)*len(p.rows))
	if len(exp.Configs) != want {
		t.Fatalf("%d configurations, want %d", len(exp.Configs), want)
	}
	for _, c := range exp.Configs {
		if c.Summary[results.MSamples] == 0 || c.Rounds[0].Histogram == "" {
			t.Errorf("%s: no samples or no histogram", c.Key)
		}
		if _, ok := c.Summary[MCPU]; !ok {
			t.Errorf("%s: no CPU per wait", c.Key)
		}
	}
	if len(exp.Claims) != 3 || len(Answers(exp.Configs)) == 0 {
		t.Errorf("claims %d, answers %v", len(exp.Claims), Answers(exp.Configs))
	}
}
