package claim

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// one is a rule of the given figures, every configuration selected.
func one(figs ...Figure) results.Claim {
	return Evaluate(Rule{ID: "x", Statement: "s", Needs: "needs y", Figures: func([]*results.Config) []Figure { return figs }},
		[]*results.Config{{Key: "k"}})
}

// The five claims that flipped between two default runs on the AMD EPYC
// guest (issue 35), shaped as their rounds were: each straddles its limit,
// so whichever way the median falls the claim is near its limit, and its
// reason says how many rounds lie on the other side.
func TestNearWhenRoundsStraddle(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     Figure
		holds bool
		why   string
	}{
		{"sync max wait, fails", Fig("sync max wait", []float64{2.54e6, 1.7e6, 2.2e6}).In("ms").AtMost(2e6), false,
			"sync max wait 2.20 ms, limit at most 2.00 ms (rounds 2.54 ms 1.70 ms 2.20 ms; 1 of 3 on the other side)"},
		{"sync max wait, holds", Fig("sync max wait", []float64{1.54e6, 1.7e6, 2.2e6}).In("ms").AtMost(2e6), true, "1 of 3 on the other side"},
		{"herd serial", Fig("lot n=64", []float64{1.29, 1.05, 1.08, 1.12, 1.02}).In("x").AtMost(1.1), true, "lot n=64 1.08x, limit at most 1.10x (rounds 1.29x 1.05x 1.08x 1.12x 1.02x; 2 of 5 on the other side)"},
		{"condvar 448, fails", Fig("std/lot", []float64{1.88, 2.3, 1.7}).In("x").AtLeast(2), false, "std/lot 1.88x, limit at least 2.00x"},
		{"sched share p99", Fig("p99", []float64{1.17, 1.08, 1.12}).In("x").AtMost(1.15), true, "1 of 3 on the other side"},
	} {
		c := one(tc.f)
		if (c.Verdict == results.Holds) != tc.holds || !c.Near || !strings.Contains(c.VerdictText(), "near its limit") {
			t.Errorf("%s: verdict %q near %v, want holds=%v near", tc.name, c.Verdict, c.Near, tc.holds)
		}
		if !strings.Contains(c.Why, tc.why) || c.Margin == "" {
			t.Errorf("%s: why %q, want %q", tc.name, c.Why, tc.why)
		}
	}
}

// A verdict every round agrees with is clear, and one clearly failing
// figure makes a clear failure even when another failing figure is near;
// the reason is then the clear one.
func TestClear(t *testing.T) {
	c := one(Fig("a", []float64{1.0, 1.05, 0.98}).AtMost(1.2))
	if c.Verdict != results.Holds || c.Near || c.Margin != "" || c.Why != "" {
		t.Errorf("clear hold: %+v", c)
	}
	c = one(Fig("a", []float64{3, 3.5, 2.9}).AtMost(2), Fig("b", []float64{2.1, 2.2, 1.9}).AtMost(2))
	if c.Verdict != results.DoesNotHold || c.Near || !strings.HasPrefix(c.Why, "a 3, limit at most 2 (rounds 3 3.5 2.9)") || !strings.HasSuffix(c.Why, "(and 1 more figure beyond its limit)") {
		t.Errorf("clear failure: %+v", c)
	}
	c = one(Fig("a", []float64{1, 1.1}).AtMost(2), Fig("b", []float64{1.9, 2.1, 1.95}).AtMost(2))
	if c.Verdict != results.Holds || !c.Near || !strings.HasPrefix(c.Why, "b 1.95, limit at most 2 (rounds 1.9 2.1 1.95; 1 of 3") {
		t.Errorf("near hold: %+v", c)
	}
	// The worst failure is the reason: furthest beyond its limit.
	c = one(Fig("a", []float64{1.2}).In("x").AtMost(1.1), Fig("b", []float64{3.1}).In("x").AtMost(1.1))
	if !strings.HasPrefix(c.Why, "b 3.10x, limit at most 1.10x") {
		t.Errorf("worst failure: %q", c.Why)
	}
	if (results.Claim{Verdict: results.NotEvaluated, Near: true}).VerdictText() != results.NotEvaluated {
		t.Error("a claim not evaluated is never near")
	}
}

// Strict and two-sided limits: above 1 fails at exactly 1; a band fails
// on either side and names both bounds.
func TestBounds(t *testing.T) {
	if c := one(Fig("r", []float64{1}).In("x").Above(1)); c.Verdict != results.DoesNotHold || c.Why != "r 1.00x, limit above 1.00x" {
		t.Errorf("above 1 at 1: %+v", c)
	}
	if c := one(Fig("r", []float64{0.999}).In("x").Below(1)); c.Verdict != results.Holds {
		t.Errorf("below 1: %+v", c)
	}
	for _, v := range []float64{0.8, 1.25} {
		c := one(Fig("r", []float64{v}).In("x").AtLeast(0.9).AtMost(1.1))
		if c.Verdict != results.DoesNotHold || !strings.Contains(c.Why, "limit at least 0.90x and at most 1.10x") {
			t.Errorf("band at %v: %+v", v, c)
		}
	}
}

// The run's noise counts on both sides of each round: rounds that agree
// with each other but lie within it of the limit are near it.
func TestNoise(t *testing.T) {
	f := Fig("f", []float64{1.02, 0.93, 0.87}).In("x").AtMost(1.1)
	if c := one(f); c.Verdict != results.Holds || c.Near {
		t.Errorf("no noise, rounds clear of the limit: %+v", c)
	}
	c := one(f.Noisy([]float64{0.1}, "the control"))
	if c.Verdict != results.Holds || !c.Near || !strings.Contains(c.Why, "each ±10%, the control; 1 of 3 within their noise of it") {
		t.Errorf("noise reaching the limit: %+v", c)
	}
	if c := one(Fig("f", []float64{1.7, 1.9}).AtMost(1.1).Noisy([]float64{0.5}, "n")); c.Verdict != results.DoesNotHold || !c.Near {
		t.Errorf("failing within its noise: %+v", c)
	}
	if c := one(Fig("f", []float64{1.7, 1.9}).AtMost(1.1).Noisy([]float64{0.05}, "n")); c.Verdict != results.DoesNotHold || c.Near {
		t.Errorf("failing beyond its noise: %+v", c)
	}
	a := &results.Config{Rounds: []results.Round{{Metrics: map[string]float64{"m": 1}}, {Metrics: map[string]float64{"m": 1.2}}, {Metrics: map[string]float64{"m": 0}}}}
	b := &results.Config{Rounds: []results.Round{{Metrics: map[string]float64{"m": 2}}, {Metrics: map[string]float64{"m": 3}}}}
	apart := RoundsApart([]*results.Config{a, b}, "m") // 0.2, and 0.5: the 0 is no measurement
	if c := one(Fig("f", []float64{1, 1}).AtMost(2).Noisy(apart, "n")); len(apart) != 2 || !strings.Contains(c.Evidence, "each ±35%, n") {
		t.Errorf("Noisy: %s (pairs %v), want the median 35%% of 2", c.Evidence, apart)
	}
	if c := one(Fig("f", []float64{1, 1}).AtMost(2).Noisy(nil, "n")); strings.Contains(c.Evidence, "±") {
		t.Errorf("Noisy without pairs: %s, want no noise", c.Evidence)
	}
	if d, ok := Apart(1.5, 1); !ok || d != 0.5 {
		t.Errorf("Apart(1.5, 1): %v %v", d, ok)
	}
}

// A figure with fewer rounds than the rule needs is near its limit however
// far its rounds sit from it (loaded's p99 ratio, one round per default
// run: 1.74x, then 0.62x); with the rounds it needs, all on one side, it
// is clear.
func TestTooFewRounds(t *testing.T) {
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
		f := Fig("4x spin-park/futex p99", tc.rounds).In("x").AtLeast(1)
		c := Evaluate(Rule{ID: "x", MinRounds: 3, Figures: func([]*results.Config) []Figure { return []Figure{f} }}, []*results.Config{{}})
		if (c.Verdict == results.Holds) != tc.holds || c.Near != tc.near {
			t.Errorf("rounds %v: %s near=%v, want holds=%v near=%v", tc.rounds, c.Verdict, c.Near, tc.holds, tc.near)
		}
		if few := len(tc.rounds) < 3; few != strings.Contains(c.Evidence, "of the 3 rounds it needs") {
			t.Errorf("rounds %v: evidence %q", tc.rounds, c.Evidence)
		}
	}
}

// Not evaluated says why: what the rule needs, that every figure ran on a
// busy machine (with the share), that there were no rounds, or which
// figures were left out.
func TestNotEvaluated(t *testing.T) {
	r := Rule{ID: "x", Needs: "needs lot", Select: func(c *results.Config) bool { return c.Impl == "lot" },
		Figures: func(cs []*results.Config) (out []Figure) {
			for _, c := range cs {
				out = append(out, Fig(c.Key, Values(c, "m"), c).AtMost(1))
			}
			return out
		}}
	at := func(share float64, rounds ...float64) *results.Config {
		c := &results.Config{Key: "lot/k", Impl: "lot", Foreign: &results.Foreign{Fraction: share}, Summary: map[string]float64{}}
		for _, v := range rounds {
			c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{"m": v}})
		}
		return c
	}
	for _, tc := range []struct {
		cs  []*results.Config
		why string
	}{
		{[]*results.Config{{Impl: "sync"}}, "needs lot"},
		{[]*results.Config{at(0.64, 0.5), at(0.7, 0.5)}, "cannot judge: every figure ran with other processes on over 50% of the CPU (up to 70%, 2 left out)"},
		{[]*results.Config{at(0)}, "cannot judge: no rounds"},
	} {
		c := Evaluate(r, tc.cs)
		if c.Verdict != results.NotEvaluated || c.Why != tc.why {
			t.Errorf("%v: %s %q, want not evaluated %q", tc.cs, c.Verdict, c.Why, tc.why)
		}
	}
	// One busy window leaves its figure out, named; the others decide.
	c := Evaluate(r, []*results.Config{at(0.64, 5), at(0.5, 0.5)})
	if c.Verdict != results.Holds || !strings.Contains(c.Evidence, "not judged: lot/k (other processes used 64% of the CPU)") {
		t.Errorf("one busy: %+v", c)
	}
	busy := at(0.9, 1)
	exact := Rule{ID: "x", Figures: func(cs []*results.Config) []Figure {
		return []Figure{Fig("wrong returns", []float64{1}, cs...).AtMost(0).Exact()}
	}}
	if c := Evaluate(exact, []*results.Config{busy}); c.Verdict != results.DoesNotHold {
		t.Errorf("an exact count on a busy machine: %+v, want judged (does not hold)", c)
	}
	c = one(Fig("a", []float64{1}).AtMost(2).Skip("one CPU"))
	if c.Verdict != results.NotEvaluated || c.Why != "needs y; not judged: a (one CPU)" {
		t.Errorf("skipped: %+v", c)
	}
}

// A claim leaves out a figure whose window had other processes on over
// half of the CPU; exactly half, an unmeasured window (-1) or none is not
// busy.
func TestBusy(t *testing.T) {
	at := func(f float64) *results.Config { return &results.Config{Foreign: &results.Foreign{Fraction: f}} }
	for _, tc := range []struct {
		c    *results.Config
		busy bool
	}{{&results.Config{}, false}, {at(-1), false}, {at(0.5), false}, {at(0.506), true}, {at(0.86), true}} {
		if got := results.Busy(tc.c) != nil; got != tc.busy {
			t.Errorf("%+v: busy %v, want %v", tc.c.Foreign, got, tc.busy)
		}
	}
	if f := results.Busy(at(0.55), at(0.2), at(0.67)); f == nil || f.Fraction != 0.67 {
		t.Errorf("0.55 and 0.67 busy: %+v, want 0.67", f)
	}
	if s := results.BusyText(&results.Foreign{Fraction: 0.5004}); s != "other processes used 50.0% of the CPU" {
		t.Errorf("busyText of 50.04%%: %q", s)
	}
}

// mk is a configuration with metric m: its summary, then its rounds.
func mk(sum float64, rounds ...float64) *results.Config {
	c := &results.Config{Summary: map[string]float64{"m": sum}}
	for _, v := range rounds {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{"m": v}})
	}
	return c
}

// PerRound computes a figure of several configurations round by round,
// and on their summaries when their rounds differ in number.
func TestPerRound(t *testing.T) {
	ratio := func(m []map[string]float64) (float64, bool) { return m[0]["m"] / m[1]["m"], m[1]["m"] > 0 }
	if got := PerRound([]*results.Config{mk(2, 2, 4), mk(1, 1, 2)}, ratio); len(got) != 2 || got[0] != 2 || got[1] != 2 {
		t.Errorf("paired rounds: %v", got)
	}
	if got := PerRound([]*results.Config{mk(3, 2, 4), mk(1, 1)}, ratio); len(got) != 1 || got[0] != 3 {
		t.Errorf("rounds differ, summaries: %v", got)
	}
}

// Ratios pairs round i of two configurations, and falls back on the
// summaries' ratio when their rounds differ in number.
func TestRatios(t *testing.T) {
	if r := Ratios(mk(3, 2, 4), mk(1, 1, 2), "m"); len(r) != 2 || r[0] != 2 || r[1] != 2 {
		t.Errorf("paired: %v", r)
	}
	if r := Ratios(mk(3, 2, 4), mk(2, 2), "m"); len(r) != 1 || r[0] != 1.5 {
		t.Errorf("summaries: %v", r)
	}
	if v := Values(mk(7), "m"); len(v) != 1 || v[0] != 7 {
		t.Errorf("no rounds, the summary: %v", v)
	}
}

// Beyond eight figures, those clearly within their limits are counted and
// the three closest to a limit named, each as it would be alone; a near
// one is named in full.
func TestManyFigures(t *testing.T) {
	var figs []Figure
	for i := range 10 {
		figs = append(figs, Fig(string(rune('a'+i)), []float64{float64(i)}).AtMost(20))
	}
	figs = append(figs, Fig("n", []float64{19, 21, 19.5}).AtMost(20))
	c := one(figs...)
	want := "n 19.5, limit at most 20 (rounds 19 21 19.5; 1 of 3 on the other side); " +
		"10 more within their limits, the closest: j 9, limit at most 20; i 8, limit at most 20; h 7, limit at most 20"
	if !strings.Contains(c.Evidence, want) {
		t.Errorf("evidence %q, want %q", c.Evidence, want)
	}
}

// decide is the core every figure is decided on: the median of the rounds
// against the limit; rounds on both sides of it (a round's noise counted
// on both sides of its value), or fewer than the rule needs, make it near.
func TestDecide(t *testing.T) {
	for _, tc := range []struct {
		name        string
		f           Figure
		min         int
		holds, near bool
	}{
		{"straddles, median over", Fig("f", []float64{2.54e6, 1.7e6, 2.2e6}).AtMost(2e6), 0, false, true},
		{"straddles, median under", Fig("f", []float64{1.29, 1.05, 1.08, 1.12, 1.02}).AtMost(1.1), 0, true, true},
		{"clear hold", Fig("f", []float64{1.0, 1.05, 0.98}).AtMost(1.2), 0, true, false},
		{"clear failure, at least", Fig("f", []float64{1.5, 1.4, 1.6}).AtLeast(2), 0, false, false},
		{"noise reaches the limit", Fig("f", []float64{1.02, 0.93, 0.87}).AtMost(1.1).Noisy([]float64{0.2}, "n"), 0, true, true},
		{"failing within its noise", Fig("f", []float64{1.7, 1.9}).AtMost(1.1).Noisy([]float64{0.4}, "n"), 0, false, true},
		{"failing beyond its noise", Fig("f", []float64{1.7, 1.9}).AtMost(1.1).Noisy([]float64{0.05}, "n"), 0, false, false},
		{"one round of the three it needs", Fig("f", []float64{1.74}).AtLeast(1), 3, true, true},
		{"three rounds on one side", Fig("f", []float64{0.62, 0.7, 0.5}).AtLeast(1), 3, false, false},
	} {
		if d := tc.f.decide(tc.min); d.holds != tc.holds || d.near != tc.near {
			t.Errorf("%s: holds %v near %v, want %v %v", tc.name, d.holds, d.near, tc.holds, tc.near)
		}
	}
}
