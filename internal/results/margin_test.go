package results

import (
	"strings"
	"testing"
)

// A claim not evaluated is never near its limit; one that holds near
// says so.
func TestVerdictText(t *testing.T) {
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
