package anatomy

import (
	"math"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/ktrace"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// syntheticRound fills a's records and wakes as a traced round of wakes
// wakes would: tid[j%2] on cpu j%2 sleeps, its CPU idles, the other side
// wakes it, the CPU leaves idle and switches to it. Every wake decomposes
// (idle): the pools get every figure.
func syntheticRound(a *PairTrace, wakes int, base int64) {
	a.events, a.wakes = a.events[:0], a.wakes[:0]
	for j := range wakes {
		me := j % 2
		wakee, waker := a.tids[me], a.tids[1-me]
		cpu, t := int16(me), base+int64(j)*10_000
		a.events = append(a.events,
			ktrace.Event{Time: t + 100, Kind: ktrace.Switch, A: int64(wakee), C: 1, TID: wakee, CPU: cpu},
			ktrace.Event{Time: t + 110, Kind: ktrace.CPUIdle, A: 1, B: int64(cpu), CPU: cpu},
			ktrace.Event{Time: t + 1500, Kind: ktrace.Waking, A: int64(wakee), B: int64(cpu), TID: waker, CPU: 1 - cpu},
			ktrace.Event{Time: t + 5000 + int64(j%7), Kind: ktrace.CPUIdle, A: ktrace.IdleExit, B: int64(cpu), CPU: cpu},
			ktrace.Event{Time: t + 6000 + int64(j%11), Kind: ktrace.Switch, B: int64(wakee), CPU: cpu})
		a.wakes = append(a.wakes, Wake{Waker: waker, Wakee: wakee, T0: t + 1000, T1: t + 7000 + int64(j%13)})
	}
}

// TestAnatomyMemoryFlat: many traced configurations, each of several rounds,
// joined and folded as latency --anatomy does, with the GC off as the run
// has it. The heap the configurations leave behind (read right after each
// configuration's own collection) and the heap a round reaches before its
// collection must not grow with the number of configurations: what a
// configuration keeps is its figures. Bytes, not time.
func TestAnatomyMemoryFlat(t *testing.T) {
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	const configs, rounds, wakes = 24, 3, 2000
	var ms runtime.MemStats
	var roundPeak, afterConfig []uint64 // per configuration
	var peak uint64
	collect := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
		runtime.GC()
	}
	const slept = "median_slept_ns" // latency's MMedianSlept
	var kept []*results.Config      // the run keeps every configuration to the end
	for c := range configs {
		peak = 0
		a := &PairTrace{tids: [2]int32{int32(1000 + 2*c), int32(1001 + 2*c)}, n: wakes / 2, collect: collect}
		cfg := &results.Config{Summary: map[string]float64{}, Params: map[string]string{}}
		var plain []float64
		for r := range rounds {
			syntheticRound(a, wakes, int64(r)*int64(wakes)*10_000)
			m := map[string]float64{slept: 6000 + float64(r)}
			for k, v := range a.fold(m[slept], true, 0) {
				m[k] = v
			}
			plain = append(plain, m[slept])
		}
		a.Finish(cfg, plain)
		if got := cfg.Summary[MIdleWakes]; got != rounds*wakes {
			t.Fatalf("configuration %d: %v idle wakes, want %d (the synthetic rounds must decompose)", c, got, rounds*wakes)
		}
		kept = append(kept, cfg)
		runtime.ReadMemStats(&ms)
		afterConfig = append(afterConfig, ms.HeapAlloc)
		roundPeak = append(roundPeak, peak)
	}
	// One configuration's records alone: 5 events of 40 bytes a wake.
	records := uint64(rounds * wakes * 5 * 40)
	const early, late = 3, configs - 1
	grew := int64(afterConfig[late]) - int64(afterConfig[early])
	// The figures a configuration keeps (its summary, ~40 figures) are
	// a few KiB; its records are a MiB.
	if perConfig := grew / (late - early); perConfig > 16<<10 {
		t.Errorf("the heap grew %d bytes per configuration (%d after configuration %d, %d after %d); one configuration's records are %d bytes",
			perConfig, afterConfig[late], late, afterConfig[early], early, records)
	}
	if roundPeak[late] > roundPeak[early]+uint64(16<<10)*(late-early) {
		t.Errorf("a round's heap before collection grew from %d (configuration %d) to %d (configuration %d)", roundPeak[early], early, roundPeak[late], late)
	}
	t.Logf("records per configuration %d bytes; heap after configurations %d..%d: %d..%d; round peaks %d..%d",
		records, early, late, afterConfig[early], afterConfig[late], roundPeak[early], roundPeak[late])
	runtime.KeepAlive(kept)
}

// A configuration whose traced rounds exceed their untraced twins by more
// than 10% (the median over rounds of each pair's ratio) is named in the
// run's warning with its figure; one within 10% is not; the probe effect
// is in each configuration's summary. The estimate is paired: rounds that
// drift move both sides of a pair, not the figure (c-futex's rounds, as a
// quiet run read them: +6.0, +13.7 and +5.0%, +6%, where the ratio of the
// sides' medians, taken from different rounds, would say +13%).
func TestProbeEffectWarned(t *testing.T) {
	var cfgs []*results.Config
	plain := [][]float64{{10_000, 10_000, 10_000}, {10_000, 10_200, 11_000}, {10_000, 10_000, 10_000}}
	traced := [][]float64{{12_000, 12_000, 11_800}, {10_600, 11_600, 11_550}, {13_000, 13_100, 12_900}}
	for i, want := range []float64{0.20, 0.06, 0.30} {
		a := &PairTrace{tids: [2]int32{1, 2}, collect: func() {}, recorder: ktrace.RecorderBPF, traced: traced[i]}
		cfg := &results.Config{Key: []string{"futex/cross-core", "c-futex/cross-core", "lot/cross-core"}[i],
			Summary: map[string]float64{"median_slept_ns": stats.Median(plain[i])}, Params: map[string]string{}}
		var pairs []float64
		for r := range plain[i] {
			pairs = append(pairs, traced[i][r]/plain[i][r]-1)
		}
		a.Finish(cfg, pairs)
		if pe := cfg.Summary[MProbeEffect]; math.Abs(pe-want) > 1e-9 {
			t.Errorf("%s: probe effect %v, want %v", cfg.Key, pe, want)
		}
		if cfg.Params["anatomy_recorder"] != ktrace.RecorderBPF {
			t.Errorf("params %v: want the recorder", cfg.Params)
		}
		cfgs = append(cfgs, cfg)
	}
	w := ProbeWarning(cfgs, "median_slept_ns")
	if len(w) != 1 || !strings.Contains(w[0], "futex/cross-core +20% (12.00 µs traced, 10.00 untraced)") ||
		!strings.Contains(w[0], "lot/cross-core +30%") || strings.Contains(w[0], "c-futex") {
		t.Fatalf("warning %q: want futex +20%% and lot +30%% named with their figures, c-futex (+6%%) not", w)
	}
	if w := ProbeWarning(cfgs[1:2], "median_slept_ns"); w != nil {
		t.Fatalf("warning %q for a probe effect of 6%%", w)
	}
}
