package results_test

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// TestDecodeRefusesImpossibleFigures: a file with a figure no measurement can
// produce is refused by Decode, so report and compare never render or judge
// it (one such file was once judged "faster, -157%").
func TestDecodeRefusesImpossibleFigures(t *testing.T) {
	longtest.Skip(t)
	s := resultstest.Spec{Spread: 0.05}
	cases := []struct {
		name  string
		spoil func(f *results.File)
		want  string
	}{
		{"negative round latency", func(f *results.File) { f.Experiments[0].Configs[0].Rounds[0].Metrics[results.MMedian] = -157 }, "median_ns = -157"},
		{"negative summary latency", func(f *results.File) { f.Experiments[0].Configs[0].Summary[results.MP99] = -1 }, "p99_ns = -1"},
		{"negative count", func(f *results.File) { f.Experiments[0].Configs[0].Rounds[0].Metrics[results.MSamples] = -3 }, "samples = -3"},
		{"corrupt histogram", func(f *results.File) {
			f.Experiments[0].Configs[0].Rounds[0].Histogram = "HISTFAAAACR4nJNpmSzMwMDAxAABzFCaEUzOmNZg"
		}, "corrupt histogram"},
		{"negative probe", func(f *results.File) { f.Experiments[0].Configs[0].Probe.SpinOneWayNs = -5 }, "probe figures"},
		{"foreign fraction above 1", func(f *results.File) { f.Experiments[0].Configs[0].Foreign.Fraction = 1.5 }, "CPU fraction 1.5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := resultstest.File(s, resultstest.Latency(s))
			tc.spoil(f)
			data, err := results.Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			_, err = results.Decode(data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// An early return is a negative overshoot: timeout reports it.
	tf := resultstest.File(s, resultstest.Timeout(s))
	tf.Experiments[0].Configs[0].Summary[results.MMin] = -10000
	if err := results.Validate(tf); err != nil {
		t.Fatalf("timeout's negative overshoot (an early return) refused: %v", err)
	}
	// A row's cost above the empty loop is a difference of two noisy
	// figures: a row at the floor reads a little below it (lock's test run
	// once wrote -10.95 ns, and its own file was refused). The row's own
	// figures stay unsigned.
	sf := resultstest.File(s, resultstest.Selfwake(s))
	sf.Experiments[0].Configs[0].Summary["over_harness_ns"] = -10.95
	if err := results.Validate(sf); err != nil {
		t.Fatalf("selfwake's over_harness_ns below the floor refused: %v", err)
	}
	sf.Experiments[0].Configs[0].Summary[results.MNsPerPair] = -1
	if err := results.Validate(sf); err == nil {
		t.Fatal("selfwake's negative ns_per_pair accepted")
	}
	// The anatomy's sum against the measured median, and its probe
	// effect, are relative differences: a quiet run wrote -0.0034 and its
	// own file was refused by report.
	lf := resultstest.File(s, resultstest.Latency(s))
	lf.Experiments[0].Configs[0].Summary["anatomy_sum_off"] = -0.0034
	lf.Experiments[0].Configs[0].Summary["anatomy_probe_effect"] = -0.02
	if err := results.Validate(lf); err != nil {
		t.Fatalf("latency's negative anatomy_sum_off refused: %v", err)
	}
	// The documented sentinels stay valid.
	f := resultstest.File(s, resultstest.Herd(s))
	f.Experiments[0].Configs[0].Summary[results.MReturn] = -1
	if err := results.Validate(f); err != nil {
		t.Fatalf("notify_return -1 (none) refused: %v", err)
	}
}

// TestDecodeNamesTheFirstBadFigure: a file whose every summary figure is
// impossible is refused naming the first figure by name, the same on every
// run (it once named a different one each time: a map's order).
func TestDecodeNamesTheFirstBadFigure(t *testing.T) {
	s := resultstest.Spec{Spread: 0.05}
	f := resultstest.File(s, resultstest.Latency(s))
	sum := f.Experiments[0].Configs[0].Summary
	keys := slices.Sorted(maps.Keys(sum))
	for k := range sum {
		sum[k] = -1e308
	}
	data, err := results.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	want := keys[0] + " = -1e+308"
	for range 20 {
		_, err := results.Decode(data)
		if err == nil || !strings.Contains(err.Error(), "summary "+want) {
			t.Fatalf("Decode = %v, want the first figure by name (%s)", err, want)
		}
	}
}
