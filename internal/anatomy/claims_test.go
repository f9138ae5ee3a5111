package anatomy

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
)

// anatCfg is a traced cross-core configuration at gap with idle_exit's
// median, the largest other component's, idle_exit's share and its idle
// wakes.
func anatCfg(impl, gap string, idle, other, share, idleWakes float64) *results.Config {
	c := &results.Config{Key: impl + "/cross-core/gap=" + gap, Impl: impl, Kind: "thread", Placement: "cross-core",
		Params: map[string]string{"gap": gap, "sleeps": "true"}, Summary: map[string]float64{results.MMedian: 10000}}
	for _, k := range Components {
		c.Summary[MedianKey(k)] = other / 2
	}
	c.Summary[MedianKey(Schedule)] = other
	c.Summary[MedianKey(IdleExit)] = idle
	c.Summary[MSumMedian] = idle + 3*other
	c.Summary[MIdleShare], c.Summary[MIdleWakes] = share, idleWakes
	return c
}

// The anatomy's claims on synthetic traced configurations: idle_exit the
// largest part (must hold, must fail, not judged on a busy target CPU),
// and its share growing with the gap.
func TestAnatomyClaims(t *testing.T) {
	of := func(id string, cs ...*results.Config) results.Claim {
		return claimtest.Find(t, Claims(&results.Experiment{Name: "latency", Configs: cs}), id)
	}
	claimtest.Want(t, "idle_exit 7 µs, schedule 2 µs", of(ClaimAnatomyIdle, anatCfg("futex", "0s", 7000, 2000, 0.6, 500)), results.Holds)
	c := of(ClaimAnatomyIdle, anatCfg("futex", "0s", 1500, 2000, 0.2, 500))
	claimtest.Want(t, "schedule the largest", c, results.DoesNotHold)
	if !strings.Contains(c.Why, "idle_exit/largest other part 0.75x, limit at least 1") {
		t.Errorf("why %q", c.Why)
	}
	claimtest.Want(t, "target CPU busy", of(ClaimAnatomyIdle, anatCfg("futex", "0s", 7000, 2000, 0.6, 5)), results.NotEvaluated)
	grows := of(ClaimAnatomyGap, anatCfg("lot", "0s", 7000, 2000, 0.5, 500), anatCfg("lot", "1ms", 9000, 2000, 0.7, 500), anatCfg("lot", "50us", 8000, 2000, 0.6, 500))
	claimtest.Want(t, "share 50%, 60%, 70%", grows, results.Holds)
	if !strings.Contains(grows.Evidence, "lot idle_exit share at gap 1ms less at 0s 20.0%") {
		t.Errorf("evidence %q", grows.Evidence)
	}
	claimtest.Want(t, "share falls", of(ClaimAnatomyGap, anatCfg("lot", "0s", 7000, 2000, 0.5, 500), anatCfg("lot", "1ms", 7000, 2000, 0.4, 500)), results.DoesNotHold)
	claimtest.Want(t, "one gap", of(ClaimAnatomyGap, anatCfg("lot", "0s", 7000, 2000, 0.5, 500)), results.NotEvaluated)
}
