package results

import "testing"

// TestMetricSpecs: an experiment's own description wins, files without one
// fall back to the legacy table, unknown experiments have none; floors are
// the floor implementation with the same placement and parameters.
func TestMetricSpecs(t *testing.T) {
	for _, name := range LegacyNames() {
		specs, _ := Legacy(name)
		if err := CheckSpecs(specs); err != nil {
			t.Errorf("legacy %s: %v", name, err)
		}
	}
	e := &Experiment{Name: "latency"}
	if specs, ok := e.Specs(); !ok || len(specs) == 0 || specs[1].Key != MMedian || !specs[1].Headline {
		t.Fatalf("latency without a description: %v %v", ok, specs)
	}
	own := []MetricSpec{{Key: "x_ns", Header: "x", Unit: UnitMicros, Better: Lower, Main: true}}
	e = &Experiment{Name: "latency", Metrics: own}
	if specs, _ := e.Specs(); len(specs) != 1 || specs[0].Key != "x_ns" {
		t.Fatalf("own description not used: %v", specs)
	}
	if _, ok := (&Experiment{Name: "unknown"}).Specs(); ok {
		t.Fatal("an unknown experiment without a description reads as described")
	}
	median, _ := (&Experiment{Name: "latency"}).Spec(MMedian)
	for _, c := range []struct{ impl, key, want string }{
		{"futex", "futex/cross-core", "c-futex/cross-core"},
		{"spin", "spin/unpinned", "c-spin/unpinned"},
		{"c-futex", "c-futex/cross-core", ""},
		{"c-spin", "c-spin/cross-core", ""},
		{"lot", "lot/cross-core/gap=50µs", "c-futex/cross-core/gap=50µs"},
	} {
		if got := median.FloorKey(&Config{Key: c.key, Impl: c.impl}); got != c.want {
			t.Errorf("floor of %s = %q, want %q", c.key, got, c.want)
		}
	}
	for _, bad := range [][]MetricSpec{
		{{Key: "a", Better: "up"}},
		{{Key: "a", Better: Lower}, {Key: "a", Better: Lower}},
		{{Key: "a", Better: Lower, Unit: "s"}},
		{{Key: "a", Better: Lower, Main: true}, {Key: "b", Better: Lower, Main: true}},
		{{Key: "a", Better: Lower, Plot: &PlotSpec{Kind: "pie"}}},
		{{Key: "a", Header: "held (µs)", Better: Lower, Unit: UnitMicros}},
	} {
		if CheckSpecs(bad) == nil {
			t.Errorf("CheckSpecs accepted %+v", bad)
		}
	}
}
