package results

import (
	"fmt"
	"strings"
	"testing"
)

// The five claims that flipped between two default runs on the AMD EPYC
// guest (issue 35), shaped as their rounds were: each straddles its limit,
// so whichever way the median falls the claim is near its limit.
func TestJudgeNearWhenRoundsStraddle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		l     Limit
		holds bool
	}{
		{"sync max wait, fails", Limit{Figure: "sync max wait", Rounds: []float64{2.54e6, 1.7e6, 2.2e6}, Limit: 2e6, AtMost: true, Unit: "ms"}, false},
		{"sync max wait, holds", Limit{Figure: "sync max wait", Rounds: []float64{1.54e6, 1.7e6, 2.2e6}, Limit: 2e6, AtMost: true, Unit: "ms"}, true},
		{"herd serial", Limit{Figure: "lot n=64", Rounds: []float64{1.29, 1.05, 1.08, 1.12, 1.02}, Limit: 1.1, AtMost: true, Unit: "x"}, true},
		{"condvar 448, fails", Limit{Figure: "std/lot", Rounds: []float64{1.88, 2.3, 1.7}, Limit: 2, Unit: "x"}, false},
		{"sched share p99", Limit{Figure: "p99", Rounds: []float64{1.17, 1.08, 1.12}, Limit: 1.15, AtMost: true, Unit: "x"}, true},
	} {
		var c Claim
		c.Judge(tc.l)
		if (c.Verdict == Holds) != tc.holds || !c.Near {
			t.Errorf("%s: verdict %q near %v, want holds=%v near", tc.name, c.Verdict, c.Near, tc.holds)
		}
		if !strings.Contains(c.Margin, "rounds ") || !strings.Contains(c.VerdictText(), "near its limit") {
			t.Errorf("%s: margin %q, text %q", tc.name, c.Margin, c.VerdictText())
		}
	}
}

// A verdict every round agrees with is clear, and one clearly failing
// limit makes a clear failure even when another failing limit is near.
func TestJudgeClear(t *testing.T) {
	var c Claim
	c.Judge(Limit{Figure: "a", Rounds: []float64{1.0, 1.05, 0.98}, Limit: 1.2, AtMost: true})
	if c.Verdict != Holds || c.Near || c.Margin != "" || c.VerdictText() != Holds {
		t.Errorf("clear hold: %+v", c)
	}
	c = Claim{}
	c.Judge(Limit{Figure: "a", Rounds: []float64{3, 3.5, 2.9}, Limit: 2, AtMost: true},
		Limit{Figure: "b", Rounds: []float64{2.1, 2.2, 1.9}, Limit: 2, AtMost: true})
	if c.Verdict != DoesNotHold || c.Near {
		t.Errorf("clear failure: %+v", c)
	}
	c = Claim{}
	c.Judge(Limit{Figure: "a", Rounds: []float64{1, 1.1}, Limit: 2, AtMost: true},
		Limit{Figure: "b", Rounds: []float64{1.9, 2.1, 1.95}, Limit: 2, AtMost: true})
	if c.Verdict != Holds || !c.Near || !strings.HasPrefix(c.Margin, "b: rounds 1.9, 2.1, 1.95 against at most 2") {
		t.Errorf("near hold: %+v", c)
	}
	if (Claim{Verdict: NotEvaluated, Near: true}).VerdictText() != NotEvaluated {
		t.Error("a claim not evaluated is never near")
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

// A round's noise counts on both sides of its value: rounds that agree
// with each other but lie within their measured noise of the limit make
// the verdict near it; the margin shows each round's noise and what it is.
func TestJudgeNoise(t *testing.T) {
	l := Limit{Figure: "f", Rounds: []float64{1.02, 0.93, 0.87}, Limit: 1.1, AtMost: true, Unit: "x"}
	var c Claim
	c.Judge(l)
	if c.Verdict != Holds || c.Near {
		t.Errorf("no noise, rounds clear of the limit: %+v", c)
	}
	l.Noise, l.NoiseOf = []float64{0, 0.1, 0.26}, "the control"
	c = Claim{}
	c.Judge(l)
	if c.Verdict != Holds || !c.Near || c.Margin != "f: rounds 1.02x, 0.93x ±0.10x, 0.87x ±0.26x against at most 1.10x (± the control)" {
		t.Errorf("noise reaching the limit: %+v", c)
	}
	// A failing figure within its noise of the limit is near; one whose
	// noise does not reach it fails clearly.
	c = Claim{}
	c.Judge(Limit{Figure: "f", Rounds: []float64{1.7, 1.9}, Noise: []float64{0.7, 0.1}, Limit: 1.1, AtMost: true})
	if c.Verdict != DoesNotHold || !c.Near {
		t.Errorf("failing within its noise: %+v", c)
	}
	c = Claim{}
	c.Judge(Limit{Figure: "f", Rounds: []float64{1.7, 1.9}, Noise: []float64{0.1, 0.1}, Limit: 1.1, AtMost: true})
	if c.Verdict != DoesNotHold || c.Near {
		t.Errorf("failing beyond its noise: %+v", c)
	}
	// Fewer noise entries than rounds: the others have none.
	if _, near := (Limit{Rounds: []float64{2, 3}, Noise: []float64{0.1}, Limit: 1}).Decide(); near {
		t.Error("a short Noise slice gave a round noise")
	}
}

// A figure with fewer rounds than it needs to show its spread is near its
// limit however far its rounds sit from it (loaded's p99 ratio, one round
// per default run: 1.74x, then 0.62x); with the rounds it needs, all on
// one side, it is clear.
func TestJudgeTooFewRounds(t *testing.T) {
	for _, tc := range []struct {
		rounds      []float64
		holds, near bool
	}{
		{[]float64{1.74}, true, true},
		{[]float64{0.62}, false, true},
		{[]float64{1.74, 1.9}, true, true},
		{[]float64{1.74, 1.9, 1.6}, true, false},
		{[]float64{0.62, 0.7, 0.5}, false, false},
		{[]float64{0.62, 1.74, 0.5}, false, true},
	} {
		l := Limit{Figure: "4x spin-park/futex p99", Rounds: tc.rounds, Limit: 1, Unit: "x", MinRounds: 3}
		var c Claim
		c.Judge(l)
		if (c.Verdict == Holds) != tc.holds || c.Near != tc.near {
			t.Errorf("rounds %v: %s near=%v, want holds=%v near=%v", tc.rounds, c.Verdict, c.Near, tc.holds, tc.near)
		}
		few := len(tc.rounds) < 3
		if d := l.Describe(); strings.Contains(d, "rounds it needs to show its spread") != few {
			t.Errorf("rounds %v: describe %q", tc.rounds, d)
		}
		if few && !strings.Contains(c.Margin, fmt.Sprintf("(%d of the 3 rounds it needs", len(tc.rounds))) {
			t.Errorf("rounds %v: margin %q names no rounds needed", tc.rounds, c.Margin)
		}
	}
	var c Claim
	if c.Judge(Limit{Figure: "none", MinRounds: 3}); c.Verdict != Holds || c.Near {
		t.Errorf("no rounds: vacuous hold, not near: %+v", c)
	}
}

// A claim leaves out a configuration whose window had other processes on
// over half of the CPU; exactly half, an unmeasured window (-1) or none is
// not busy.
func TestForeignBusy(t *testing.T) {
	for _, tc := range []struct {
		f    *Foreign
		busy bool
	}{
		{nil, false}, {&Foreign{Fraction: -1}, false}, {&Foreign{Fraction: 0.5}, false},
		{&Foreign{Fraction: 0.506}, true}, {&Foreign{Fraction: 0.86}, true},
	} {
		if got := tc.f.Busy(); got != tc.busy {
			t.Errorf("%+v: busy %v, want %v", tc.f, got, tc.busy)
		}
	}
	if s := (&Foreign{Fraction: 0.64}).BusyText(); s != "other processes used 64% of the CPU (over 50%)" {
		t.Errorf("BusyText %q", s)
	}
	if s := (&Foreign{Fraction: 0.5004}).BusyText(); s != "other processes used 50.0% of the CPU (over 50%)" {
		t.Errorf("BusyText of 50.04%%: %q", s)
	}
}

func TestBusiest(t *testing.T) {
	at := func(f float64) *Config { return &Config{Foreign: &Foreign{Fraction: f}} }
	if f := Busiest(at(0.3), &Config{}, at(0.5)); f != nil {
		t.Errorf("none over half: %+v", f)
	}
	if f := Busiest(at(0.55), at(0.2), at(0.67)); f == nil || f.Fraction != 0.67 {
		t.Errorf("0.55 and 0.67 busy: %+v, want 0.67", f)
	}
}
