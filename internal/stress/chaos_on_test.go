//go:build parkchaos

package stress

import (
	"testing"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/parkers"
)

// TestMain prints, after the suite, where faults were injected: which
// chaos points the protocols reached and how often each injected.
func TestMain(m *testing.M) { mainWithSummary(m, chaos.Summary) }

// TestChaosPointsReached checks that the suite drove the protocols through
// their fault-injection points (a point never reached injects nothing).
func TestChaosPointsReached(t *testing.T) {
	// Run a little lot and parker traffic, then look at the calls.
	stressLotPark(t, "chaos/lot-park", 4, 2, 2)
	for _, b := range threadBackends() {
		if b.Name == "futex" || b.Name == "pthread" {
			stressThreadParker(t, "chaos/thread-"+b.Name, b.NewThread, 3, 1)
		}
	}
	calls := chaos.Calls()
	want := []string{"lot.park.queued", "lot.park.timedout", "lot.unpark.marked"}
	if _, err := parkers.Lookup("futex"); err == nil {
		want = append(want, "futex.park.before-wait", "futex.unpark.before-wake")
	}
	for _, p := range want {
		if calls[p] == 0 {
			t.Errorf("chaos point %q never reached", p)
		}
	}
	t.Logf("points reached: %d, faults injected: %d", len(calls), chaos.Injected())
}
