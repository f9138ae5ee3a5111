package latency

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// synthRound is a round of n samples: for each (share, median, spread)
// regime, share x n samples log-normally spread (spread = the sigma of
// log(sample)) around median; its histogram and median as a latency round
// has them.
func synthRound(t *testing.T, rng *rand.Rand, n int, regimes ...[3]float64) results.Round {
	t.Helper()
	h := driver.NewHist()
	for _, r := range regimes {
		for i := 0; i < int(r[0]*float64(n)); i++ {
			driver.RecordAll(h, int64(r[1]*math.Exp(r[2]*rng.NormFloat64())))
		}
	}
	enc, err := results.EncodeHist(h)
	if err != nil {
		t.Fatal(err)
	}
	return results.Round{Histogram: enc, Metrics: map[string]float64{results.MMedian: float64(h.ValueAtQuantile(50))}}
}

// Rounds in two regimes (the unpinned futex: one round around
// 0.9 µs, two around 32 µs) are flagged, each mode with its share and
// rounds; so is a mix inside every round (40% same-CPU wakes at 1 µs).
func TestDetectModesTwoModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 10000
	across := &results.Config{Key: "futex/unpinned", Placement: driver.Unpinned, Rounds: []results.Round{
		synthRound(t, rng, n, [3]float64{1, 907, 0.15}),
		synthRound(t, rng, n, [3]float64{1, 33375, 0.3}),
		synthRound(t, rng, n, [3]float64{1, 31855, 0.3}),
	}}
	for i, same := range []float64{1, 0, 0} {
		across.Rounds[i].Metrics[MSameCPU] = same
	}
	modes, warn := DetectModes(across)
	if len(modes) != 2 {
		t.Fatalf("rounds in two regimes: %d modes (%q), want 2", len(modes), warn)
	}
	hi, lo := modes[0], modes[1]
	if math.Abs(hi.Share-2.0/3) > 0.02 || math.Abs(lo.Share-1.0/3) > 0.02 {
		t.Errorf("shares %.3f, %.3f, want 2/3 and 1/3", hi.Share, lo.Share)
	}
	if hi.MedianNs < 25000 || hi.MedianNs > 40000 || lo.MedianNs < 700 || lo.MedianNs > 1200 {
		t.Errorf("medians %.0f, %.0f ns, want about 32 µs and 0.9 µs", hi.MedianNs, lo.MedianNs)
	}
	if len(lo.Rounds) != 1 || lo.Rounds[0] != 1 || len(hi.Rounds) != 2 {
		t.Errorf("rounds %v / %v, want [2 3] / [1]", hi.Rounds, lo.Rounds)
	}
	for _, want := range []string{"bimodal", "round 1", "rounds 2, 3", "unpinned", "100%, 0%, 0%"} {
		if !strings.Contains(warn, want) {
			t.Errorf("warning lacks %q: %s", want, warn)
		}
	}

	within := &results.Config{Key: "futex/unpinned", Placement: driver.Unpinned}
	for i := 0; i < 3; i++ {
		within.Rounds = append(within.Rounds, synthRound(t, rng, n, [3]float64{0.4, 1000, 0.2}, [3]float64{0.6, 28000, 0.25}))
	}
	for i := range within.Rounds {
		within.Rounds[i].Metrics[MSameCPU] = 1
	}
	modes, warn = DetectModes(within)
	if len(modes) != 2 || math.Abs(modes[0].Share-0.6) > 0.02 || len(modes[0].Rounds) != 3 || len(modes[1].Rounds) != 0 {
		t.Errorf("a 40/60 mix in every round: modes %+v (%q), want 60%% (rounds 1-3) and 40%%", modes, warn)
	}
	// Every round on one CPU: the modes are the mechanism's, not placement.
	if !strings.Contains(warn, "the mechanism's own") || strings.Contains(warn, "pin with") {
		t.Errorf("all rounds on one CPU: warning %q, want the modes called the mechanism's own", warn)
	}

	// One round of nine whose median lies in another regime: 7% of the
	// pooled samples, under the 10% a mode needs without a round of its own.
	odd := &results.Config{Key: "futex/unpinned", Placement: driver.Unpinned}
	for i := 0; i < 9; i++ {
		if i == 4 {
			odd.Rounds = append(odd.Rounds, synthRound(t, rng, n, [3]float64{0.6, 1000, 0.2}, [3]float64{0.4, 28000, 0.25}))
			continue
		}
		odd.Rounds = append(odd.Rounds, synthRound(t, rng, n, [3]float64{1, 28000, 0.25}))
	}
	modes, warn = DetectModes(odd)
	if len(modes) != 2 || len(modes[1].Rounds) != 1 || modes[1].Rounds[0] != 5 {
		t.Errorf("one round of nine in another regime: modes %+v (%q), want a second mode holding round 5", modes, warn)
	}
}

// One regime with round-to-round noise, a heavy tail, or a small share of
// short no-sleep samples is not flagged.
func TestDetectModesOneMode(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n = 10000
	cases := map[string][][][3]float64{
		// Round medians 24, 28 and 33 µs, wide spread in each.
		"noisy rounds": {{{1, 24000, 0.5}}, {{1, 28000, 0.5}}, {{1, 33000, 0.5}}},
		// 3% of samples spread up to a millisecond.
		"heavy tail": {{{0.97, 28000, 0.2}, {0.03, 200000, 1}}, {{0.97, 28000, 0.2}, {0.03, 200000, 1}}},
		// 4% no-sleep waits at 0.4 µs under the sleeping 20 µs ones.
		"few no-sleep": {{{0.96, 21000, 0.2}, {0.04, 400, 0.1}}, {{0.96, 21000, 0.2}, {0.04, 400, 0.1}}, {{0.97, 21000, 0.2}, {0.03, 400, 0.1}}},
		// A busy-wait: tight, HDR's sub-bucket steps and all.
		"spin": {{{1, 260, 0.2}}, {{1, 265, 0.2}}, {{1, 255, 0.2}}},
	}
	for name, rounds := range cases {
		cfg := &results.Config{Key: name, Placement: driver.CrossCore}
		for _, r := range rounds {
			cfg.Rounds = append(cfg.Rounds, synthRound(t, rng, n, r...))
		}
		if modes, warn := DetectModes(cfg); modes != nil || warn != "" {
			t.Errorf("%s: flagged %+v: %s", name, modes, warn)
		}
	}
	// No histograms: nothing to detect.
	if modes, _ := DetectModes(&results.Config{Rounds: []results.Round{{Metrics: map[string]float64{}}}}); modes != nil {
		t.Errorf("no histograms: %+v", modes)
	}
}

// The wake is the slept waits' median for a mechanism that sleeps (none in
// a round where no wait slept), every wait's for one that busy-waits.
func TestWakeMetric(t *testing.T) {
	for _, c := range []struct {
		m      map[string]float64
		sleeps bool
		want   float64
		ok     bool
	}{
		{map[string]float64{results.MMedian: 700, MMedianSlept: 10_800}, true, 10_800, true},
		{map[string]float64{results.MMedian: 700}, true, 0, false},
		{map[string]float64{results.MMedian: 80, MMedianSlept: 5_000}, false, 80, true},
	} {
		wakeMetric(c.m, c.sleeps)
		if v, ok := c.m[MWakeMedian]; ok != c.ok || v != c.want {
			t.Errorf("sleeps=%v: wake %v (%v), want %v (%v)", c.sleeps, v, ok, c.want, c.ok)
		}
	}
}
