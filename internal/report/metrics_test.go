package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// described is an experiment this build knows nothing about, carrying its
// own metric description: report must show it as the description says
// (columns, units, diagnostics only when wide, the main figure's spread,
// benchstat units, the pivot) without any code for its name.
func described() *results.File {
	s := resultstest.Spec{Samples: 100, Seed: 3}
	e := resultstest.Latency(s)
	e.Name = "wakeup"
	e.Metrics = []results.MetricSpec{
		{Key: results.MMedian, Header: "centre", Unit: results.UnitMicros, Better: results.Lower, Main: true, Headline: true, Benchstat: "ns/op", Floor: "c-futex"},
		{Key: results.MP99, Header: "tail", Unit: results.UnitMicros, Better: results.Lower, Benchstat: "tail-ns/op"},
		{Key: results.MNoSleep, Header: "lazy", Better: results.Lower, Diagnostic: true},
	}
	return resultstest.File(s, e)
}

func TestDescribedExperiment(t *testing.T) {
	f := described()
	var narrow, wide, bench bytes.Buffer
	if err := Render(&narrow, f, "table", Options{}); err != nil {
		t.Fatal(err)
	}
	if err := Render(&wide, f, "table", Full); err != nil {
		t.Fatal(err)
	}
	if err := Render(&bench, f, "benchstat", Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"centre (µs)", "tail (µs)", "centre 18.32 µs (channel/same-core) .."} {
		if !strings.Contains(narrow.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, narrow.String())
		}
	}
	lazyColumn := regexp.MustCompile(`│\s*lazy\s*│`)
	if lazyColumn.MatchString(narrow.String()) || !lazyColumn.MatchString(wide.String()) {
		t.Errorf("the diagnostic column must show only when wide")
	}
	if !strings.Contains(narrow.String(), "--wide adds the diagnostic column lazy") {
		t.Errorf("the narrow table does not say what --wide adds:\n%s", narrow.String())
	}
	if strings.Contains(narrow.String(), "p99.9") || strings.Contains(narrow.String(), "median (µs)") {
		t.Errorf("columns outside the description shown:\n%s", narrow.String())
	}
	lines := strings.Split(bench.String(), "\n")
	var row string
	for _, l := range lines {
		if strings.HasPrefix(l, "BenchmarkWakeup/futex/cross-core") {
			row = l
			break
		}
	}
	if f := strings.Fields(row); len(f) != 6 || f[3] != "ns/op" || f[5] != "tail-ns/op" {
		t.Errorf("benchstat row %q: want ns/op first, then tail-ns/op", row)
	}
}
