package compare

import (
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/verdict"
)

// lockFile is a lock result with one configuration: rounds of total_mops
// and wait_p99_ns.
func lockFile(mops, p99 []float64) *results.File {
	c := &results.Config{Key: "lot/in=0s/between=0s/locks=1/t=2", Impl: "lot", Summary: map[string]float64{}}
	for i := range mops {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{"total_mops": mops[i], "wait_p99_ns": p99[i], "uncontended_ns": 15}})
	}
	return &results.File{Format: results.Format, Version: results.Version, Machine: results.Machine{Slug: "m"},
		Experiments: []*results.Experiment{{Name: "lock", Configs: []*results.Config{c}}}}
}

// TestLockThroughputIsHigherBetter: more Mops is faster, fewer slower,
// while the wait stays lower-is-better.
func TestLockThroughputIsHigherBetter(t *testing.T) {
	base := lockFile([]float64{10, 10.2, 9.9}, []float64{100, 101, 99})
	up := lockFile([]float64{20, 20.5, 19.8}, []float64{300, 310, 305})
	want := map[string]verdict.Verdict{"total_mops": verdict.Faster, "wait_p99_ns": verdict.Slower, "uncontended_ns": verdict.NoChange}
	for _, row := range run(t, base, up).Rows {
		if row.Verdict != want[row.Metric] {
			t.Errorf("base -> up: %s %s, want %s (%s)", row.Metric, row.Verdict, want[row.Metric], row.Reason)
		}
	}
	want = map[string]verdict.Verdict{"total_mops": verdict.Slower, "wait_p99_ns": verdict.Faster, "uncontended_ns": verdict.NoChange}
	r := run(t, up, base)
	for _, row := range r.Rows {
		if row.Verdict != want[row.Metric] {
			t.Errorf("up -> base: %s %s, want %s (%s)", row.Metric, row.Verdict, want[row.Metric], row.Reason)
		}
	}
	if !r.Regressed() {
		t.Errorf("less throughput did not regress")
	}
}

// TestRwlockThroughputIsHigherBetter: rwlock's read and write Mops are
// throughputs too.
func TestRwlockThroughputIsHigherBetter(t *testing.T) {
	file := func(read, write float64) *results.File {
		c := &results.Config{Key: "lot/in=0s/between=0s/w=1/r=2", Impl: "lot", Summary: map[string]float64{}}
		for i := 0; i < 3; i++ {
			d := float64(i) * 0.01
			c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{"read_mops": read + d, "write_mops": write + d, "write_wait_max_ns": 1000 + d}})
		}
		return &results.File{Format: results.Format, Version: results.Version, Machine: results.Machine{Slug: "m"},
			Experiments: []*results.Experiment{{Name: "rwlock", Configs: []*results.Config{c}}}}
	}
	want := map[string]verdict.Verdict{"read_mops": verdict.Faster, "write_mops": verdict.Slower, "write_wait_max_ns": verdict.NoChange}
	rows := run(t, file(10, 5), file(20, 1)).Rows
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	for _, row := range rows {
		if row.Verdict != want[row.Metric] {
			t.Errorf("%s %s, want %s (%s)", row.Metric, row.Verdict, want[row.Metric], row.Reason)
		}
	}
}
