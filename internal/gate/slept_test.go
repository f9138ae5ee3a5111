package gate

import (
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// A delay in the futex parker's own wake path lengthens every wait that
// slept and lets more waits find the reply before they sleep (on the AMD
// EPYC guest the row was multimodal in 9 of 10 trials and "unknown" twice
// under 2 µs). Judged on the overall median the row reads faster; on the
// slept waits it reads as the slowdown it is. Shapes: base futex overall
// 28.3 µs with 12% no-sleep waits, slept 30.2 µs; new overall 26.0 µs with
// 40% no-sleep, slept 32.2 µs; c-futex unchanged.
func TestSleptRowShowsOwnSlowdown(t *testing.T) {
	spec := results.MetricSpec{Key: results.MMedian, Header: "median", Better: results.Lower, Headline: true,
		Floor: "c-futex", Slept: "median_slept_ns"}
	mk := func(overall, slept float64) *results.Experiment {
		round := func(o, s float64) results.Round {
			return results.Round{Metrics: map[string]float64{results.MMedian: o, spec.Slept: s}}
		}
		futex := &results.Config{Key: "futex/cross-core", Impl: "futex",
			Summary: map[string]float64{results.MMedian: overall, spec.Slept: slept}}
		floor := &results.Config{Key: "c-futex/cross-core", Impl: "c-futex",
			Summary: map[string]float64{results.MMedian: 28600, spec.Slept: 30700}}
		for i := 0; i < 3; i++ {
			futex.Rounds = append(futex.Rounds, round(overall, slept))
			floor.Rounds = append(floor.Rounds, round(28600, 30700))
		}
		return &results.Experiment{Name: "latency", Configs: []*results.Config{futex, floor}}
	}
	base, slower := mk(28300, 30200), mk(26000, 32200)
	c := base.Config("futex/cross-core")
	r := Row{Experiment: "latency", Config: c.Key, Impl: "futex", Metric: spec.Key, Header: spec.Header, Floor: spec.FloorKey(c)}
	if !sleptRow(base, c, r, spec) {
		t.Fatal("a row whose configuration and floor record the slept median is not judged on it")
	}
	overallB, _ := value(base, r)
	overallN, _ := value(slower, r)
	r.Metric = spec.Slept
	sleptB, _ := value(base, r)
	sleptN, _ := value(slower, r)
	if overallN >= overallB {
		t.Fatalf("fixture: the overall ratio should read faster (%.3f -> %.3f)", overallB, overallN)
	}
	if got := sleptN / sleptB; got < 1.05 {
		t.Errorf("slept ratio %.3f -> %.3f (x%.3f): want the +6.6%% slowdown", sleptB, sleptN, got)
	}
	// Without the slept figure on the floor the row stays on the median.
	delete(base.Config("c-futex/cross-core").Summary, spec.Slept)
	r.Metric = spec.Key
	if sleptRow(base, c, r, spec) {
		t.Error("judged on the slept median although the floor does not record it")
	}
}
