package results

import (
	"strings"
	"testing"
)

// Decide is the core every claim is decided on (internal/claim builds on
// it): the median of the rounds against the limit; rounds on both sides
// of it (a round's noise counted on both sides of its value), or fewer
// than MinRounds, make it near; no rounds hold vacuously, not near.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name        string
		l           Limit
		holds, near bool
	}{
		{"straddles, median over", Limit{Rounds: []float64{2.54e6, 1.7e6, 2.2e6}, Limit: 2e6, AtMost: true}, false, true},
		{"straddles, median under", Limit{Rounds: []float64{1.29, 1.05, 1.08, 1.12, 1.02}, Limit: 1.1, AtMost: true}, true, true},
		{"clear hold", Limit{Rounds: []float64{1.0, 1.05, 0.98}, Limit: 1.2, AtMost: true}, true, false},
		{"clear failure, at least", Limit{Rounds: []float64{1.5, 1.4, 1.6}, Limit: 2}, false, false},
		{"noise reaches the limit", Limit{Rounds: []float64{1.02, 0.93, 0.87}, Noise: []float64{0, 0.1, 0.26}, Limit: 1.1, AtMost: true}, true, true},
		{"failing within its noise", Limit{Rounds: []float64{1.7, 1.9}, Noise: []float64{0.7, 0.1}, Limit: 1.1, AtMost: true}, false, true},
		{"failing beyond its noise", Limit{Rounds: []float64{1.7, 1.9}, Noise: []float64{0.1, 0.1}, Limit: 1.1, AtMost: true}, false, false},
		{"a short Noise slice: the others have none", Limit{Rounds: []float64{2, 3}, Noise: []float64{0.1}, Limit: 1}, true, false},
		{"one round of the three it needs", Limit{Rounds: []float64{1.74}, Limit: 1, MinRounds: 3}, true, true},
		{"three rounds on one side", Limit{Rounds: []float64{0.62, 0.7, 0.5}, Limit: 1, MinRounds: 3}, false, false},
		{"no rounds", Limit{MinRounds: 3}, true, false},
	} {
		if holds, near := tc.l.Decide(); holds != tc.holds || near != tc.near {
			t.Errorf("%s: holds %v near %v, want %v %v", tc.name, holds, near, tc.holds, tc.near)
		}
	}
	if (Claim{Verdict: NotEvaluated, Near: true}).VerdictText() != NotEvaluated || (Claim{Verdict: Holds, Near: true}).VerdictText() != "holds, near its limit" {
		t.Error("VerdictText: a claim not evaluated is never near; one that holds near says so")
	}
}

// A file says it was recorded under load from its configurations' foreign
// shares (the median one, so that one short window's tick-quantised 50%
// does not make a quiet run busy), else from the load average.
func TestLoadNote(t *testing.T) {
	mk := func(load float64, fractions ...float64) *File {
		e := &Experiment{Name: "latency"}
		for _, fr := range fractions {
			e.Configs = append(e.Configs, &Config{Foreign: &Foreign{Fraction: fr}})
		}
		return &File{Machine: Machine{LogicalCPUs: 2, LoadAvg: [3]float64{load}}, Experiments: []*Experiment{e}}
	}
	if n := LoadNote(mk(3.03, 0.40, 0.42, 0.45, 0.02, 0.01)); !strings.Contains(n, "40% of the CPU in the median configuration") || !strings.Contains(n, "3 of 5") {
		t.Errorf("the noisy Intel baseline's shape: %q", n)
	}
	if n := LoadNote(mk(1.5, 0, 0.01, 0.5, 0)); n != "" {
		t.Errorf("a quiet run with one tick-quantised window: %q, want none", n)
	}
	if n := LoadNote(mk(3.5)); !strings.Contains(n, "load average 3.50") {
		t.Errorf("no foreign shares, load 3.5 on 2 CPUs: %q", n)
	}
	if n := LoadNote(mk(0.5)); n != "" {
		t.Errorf("no foreign shares, load 0.5: %q", n)
	}
}
