package trend

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// TestAnalyze: twelve recorded suites of one class, the last six 30%
// slower: every judged latency median moves at the seventh run, and the
// line names its time and commit; another class is a separate history.
func TestAnalyze(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := range 12 {
		scale := 1.0
		if i >= 6 {
			scale = 1.3
		}
		s := resultstest.Spec{Spread: 0.02, Seed: uint64(i + 1), Scale: scale, Samples: 100, Started: t0.Add(time.Duration(i) * time.Hour)}
		f := resultstest.File(s, resultstest.Latency(s))
		f.Tool.Commit = strings.Repeat(string(rune('a'+i)), 40)
		if _, err := results.Record(dir, f, ""); err != nil {
			t.Fatal(err)
		}
	}
	amd := resultstest.Spec{Machine: resultstest.Machine("AMD EPYC 7763 64-Core Processor", 2), Samples: 100, Started: t0}
	if _, err := results.Record(dir, resultstest.File(amd, resultstest.Latency(amd)), ""); err != nil {
		t.Fatal(err)
	}
	files, paths, skipped, err := Load(dir)
	if err != nil || len(files) != 13 || len(skipped) != 0 {
		t.Fatalf("load: %d files, skipped %v, %v", len(files), skipped, err)
	}
	r := Analyze(dir, files, paths, "", DefaultOptions)
	if len(r.Classes) != 2 {
		t.Fatalf("classes %v", r.Classes)
	}
	moved := map[string]bool{}
	for _, s := range r.Series {
		for _, c := range s.Changes {
			if s.Metric == results.MMedian && c.Index == 6 && c.After/c.Before > 1.2 {
				moved[s.Config] = true
			}
		}
	}
	for _, cfg := range []string{"futex/cross-core", "pthread/cross-core", "std/cross-core", "channel/cross-core"} {
		if !moved[cfg] {
			t.Errorf("%s median: no change point at run 7 (series %+v)", cfg, r.Series)
		}
	}
	var buf bytes.Buffer
	Render(&buf, r)
	if !strings.Contains(buf.String(), "latency futex/cross-core median: ") || !strings.Contains(buf.String(), "from 2026-12-01 06:00Z (gggggggggggg,") {
		t.Errorf("output:\n%s", buf.String())
	}
	if r2 := Analyze(dir, files, paths, "linux-amd64-2cpu-amd", DefaultOptions); len(r2.Classes) != 1 || r2.Tested != 0 {
		t.Errorf("one class: %v, %d tested", r2.Classes, r2.Tested)
	}
}
