package experiments

import (
	"reflect"
	"slices"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/inversion"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// TestMetricsMatchLegacy: a file written before experiments declared their
// metrics (results.Legacy) must render, compare and plot as a new file of
// the same experiment does, so the frozen fallback table and each
// experiment's declaration agree figure by figure (floors aside: the
// declarations name this OS's C floor, the table Linux's).
func TestMetricsMatchLegacy(t *testing.T) {
	addedSince := map[string]bool{latency.MMinSlept: true,
		// The wake, the table's median since, and the share that did not
		// sleep beside it.
		latency.MWakeMedian: true, latency.MNoSleepFraction: true,
		// The goroutine-level figures (--participants).
		schedacct.MWakeSameP: true, schedacct.MWakeOtherP: true, schedacct.MWakeThreadWoken: true, schedacct.MWakesPerRT: true,
		schedacct.MGoSchedLatMedian: true, schedacct.MGoSchedLatP99: true, schedacct.MGoThreads: true,
		// The harness floor figures (lock and selfwake share the keys).
		lock.MHarness: true, lock.MOverHarness: true}
	// reshaped: figures whose header, visibility or main mark changed on
	// purpose, the rest of their description kept.
	reshaped := map[string]bool{"latency " + results.MMedian: true, "latency " + results.MMin: true}
	declared := map[string][]results.MetricSpec{
		"latency": latency.LatencyMetrics, "selfwake": selfwake.Metrics, "herd": herd.Metrics,
		"timeout": timeout.Metrics, "lock": lock.Metrics, "rwlock": lock.RwMetrics, "inversion": inversion.Metrics,
	}
	for _, name := range results.LegacyNames() {
		old, _ := results.Legacy(name)
		now, ok := declared[name]
		// Figures added after the table froze: a file that has no
		// description has no such figure either.
		now = slices.DeleteFunc(slices.Clone(now), func(m results.MetricSpec) bool { return addedSince[m.Key] })
		if !ok {
			if len(old) != 0 {
				t.Errorf("%s: in the legacy table but declares no metrics", name)
			}
			continue
		}
		if len(now) != len(old) {
			t.Errorf("%s: declares %d metrics, the legacy table %d", name, len(now), len(old))
			continue
		}
		// latency's figures over every wait moved behind its wake (the
		// wide view, their own headers) in the declared order; the
		// legacy table, for files without the wake, keeps them first.
		if name == "latency" {
			order := map[string]int{}
			for i, m := range old {
				order[m.Key] = i
			}
			slices.SortStableFunc(now, func(a, b results.MetricSpec) int { return order[a.Key] - order[b.Key] })
		}
		for i := range now {
			a, b := now[i], old[i]
			a.Floor, a.FloorByImpl, b.Floor, b.FloorByImpl = "", nil, "", nil
			a.Slept = "" // what the gate judges: files without a description give the overall median
			if reshaped[name+" "+a.Key] {
				a.Header, a.Diagnostic, a.Main = b.Header, b.Diagnostic, b.Main
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s metric %d: declared %+v, legacy %+v", name, i, a, b)
			}
			if (now[i].Floor == "") != (old[i].Floor == "") {
				t.Errorf("%s %s: floor %q declared, %q in the legacy table", name, now[i].Key, now[i].Floor, old[i].Floor)
			}
		}
	}
	for name, specs := range declared {
		if err := results.CheckSpecs(specs); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
