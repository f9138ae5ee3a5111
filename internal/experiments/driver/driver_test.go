package driver

import (
	"errors"
	"slices"
	"testing"

	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

func TestMedian(t *testing.T) {
	in := []float64{5, 1, 3, 2}
	if got := Median(in); got != 2.5 {
		t.Errorf("Median = %v, want 2.5", got)
	}
	if !slices.Equal(in, []float64{5, 1, 3, 2}) {
		t.Errorf("Median changed its input: %v", in)
	}
	if Median(nil) != 0 || Median([]float64{7}) != 7 {
		t.Error("Median of none or one")
	}
	s := MedianOfRounds([]map[string]float64{{"a": 1, "b": 9}, {"a": 3}, {"a": 2}})
	if s["a"] != 2 || s["b"] != 9 {
		t.Errorf("MedianOfRounds = %v", s)
	}
}

func TestRecordAllClamps(t *testing.T) {
	h := NewHist()
	RecordAll(h, -5, 0, 100, HistHighest*10)
	if h.TotalCount() != 4 || h.Min() != HistLowest {
		t.Errorf("count %d min %d: values outside the range must be clamped, not lost", h.TotalCount(), h.Min())
	}
	m := map[string]float64{}
	HistMetrics(h, m)
	if m[results.MSamples] != 4 {
		t.Errorf("HistMetrics samples = %v", m[results.MSamples])
	}
	if _, err := results.EncodeHist(h); err != nil {
		t.Error(err)
	}
}

func TestOptionErrorsNameTheField(t *testing.T) {
	var oe *OptionError
	_, _, err := ResolvePlacements("Placements", []string{"sideways"})
	if !errors.As(err, &oe) || oe.Field != "Placements" {
		t.Errorf("ResolvePlacements: %v, want an OptionError on Placements", err)
	}
	got, explicit, err := ResolvePlacements("Placements", []string{SameCore, All})
	if err != nil || !slices.Equal(got, Placements) || !explicit[SameCore] || explicit[Unpinned] {
		t.Errorf("ResolvePlacements(same-core, all) = %v %v %v", got, explicit, err)
	}
	for _, name := range []string{"nosuch", parkers.NameWasm} {
		if _, err := LotParker("LotParker", name); !errors.As(err, &oe) || oe.Field != "LotParker" {
			t.Errorf("LotParker(%q): %v, want an OptionError on LotParker", name, err)
		}
	}
	if b, err := LotParker("LotParker", ""); err != nil || b.Name == "" {
		t.Errorf("LotParker(\"\") = %v, %v: want the lot's current backend", b.Name, err)
	}
	if err := CheckCount("Rounds", "rounds", 0, 1, 10); !errors.As(err, &oe) || oe.Field != "Rounds" {
		t.Errorf("CheckCount: %v", err)
	}
}

func TestProgressStage(t *testing.T) {
	var nilP Progress
	nilP.Report(1, 2, "x") // must not panic
	if nilP.Stage("a") != nil {
		t.Error("a nil Progress staged must stay nil")
	}
	var got string
	p := Progress(func(_, _ int, label string) { got = label })
	p.Stage("herd").Report(0, 1, "lot/unpinned")
	if got != "herd lot/unpinned" {
		t.Errorf("label %q", got)
	}
}
