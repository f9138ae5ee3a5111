package spin

import (
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
)

// synth builds a run's configurations from figures: per placement its
// ping-pong's rounds of cost, and per gap each row's rounds of (latency,
// cpu, late) in ns. Claims read nothing else.
type synth struct{ cfgs []*results.Config }

func rounds(vals ...map[string]float64) []results.Round {
	out := make([]results.Round, len(vals))
	for i, v := range vals {
		out[i] = results.Round{Metrics: v}
	}
	return out
}

// fig is one round's figures of a row: latency, cpu, late (ns).
type fig struct{ lat, cpu, late float64 }

func (f fig) metrics() map[string]float64 {
	return map[string]float64{results.MMedian: f.lat, MCPU: f.cpu, MLate: f.late, MCost: f.lat + f.cpu, MLateCost: f.late + f.cpu,
		MSleptLat: f.lat, MSleptCPU: f.cpu}
}

func (s *synth) add(impl, placement string, gap time.Duration, budget string, figs ...fig) {
	ms := make([]map[string]float64, len(figs))
	for i, f := range figs {
		ms[i] = f.metrics()
	}
	c := &results.Config{Impl: impl, Params: map[string]string{"placement": placement, "gap": gap.String()}, Rounds: rounds(ms...)}
	if impl == RowPingPong {
		delete(c.Params, "gap")
	}
	if budget != "" {
		c.Params["budget"] = budget
	}
	c.Key = impl + "/" + placement + "/" + gap.String() + "/" + budget
	c.Summary = map[string]float64{}
	for k := range ms[0] {
		var v []float64
		for _, m := range ms {
			v = append(v, m[k])
		}
		c.Summary[k] = v[len(v)/2]
	}
	s.cfgs = append(s.cfgs, c)
}

func three(f fig) []fig { return []fig{f, f, f} }

// crossCore is a cross-core run with a park + wake cost of 10 µs (5 µs
// latency + 5 µs CPU) at gaps of 2 µs and 100 µs: fixed budgets 0, 4 µs,
// 20 µs, 50 µs and unbounded, the competitive rule. At 100 µs a budget
// between C and the gap spins, then parks: the same latency, more CPU.
// pastLat is the 50 µs budget's latency at 100 µs (5000: no gain).
func crossCore(pastLat, compCost float64) *synth {
	s := &synth{}
	const pl = CrossCore
	s.add(RowPingPong, pl, 0, "", three(fig{5000, 5000, 0})...)
	g1, g2 := 2*time.Microsecond, 100*time.Microsecond
	s.add(RowFixed, pl, g1, "0", three(fig{5000, 5000, 5000})...)
	s.add(RowFixed, pl, g1, "4µs", three(fig{300, 2000, 300})...)
	s.add(RowFixed, pl, g1, "20µs", three(fig{300, 2000, 300})...)
	s.add(RowFixed, pl, g1, "50µs", three(fig{300, 2000, 300})...)
	s.add(RowFixed, pl, g1, "unbounded", three(fig{300, 2000, 300})...)
	s.add(RowCompetitive, pl, g1, "", three(fig{300, 2000, 300})...)
	s.add(RowFixed, pl, g2, "0", three(fig{5000, 5000, 5000})...)
	s.add(RowFixed, pl, g2, "4µs", three(fig{5000, 9000, 5000})...)
	s.add(RowFixed, pl, g2, "20µs", three(fig{5000, 25000, 5000})...)
	s.add(RowFixed, pl, g2, "50µs", three(fig{pastLat, 55000, pastLat})...)
	s.add(RowFixed, pl, g2, "unbounded", three(fig{300, 100000, 300})...)
	s.add(RowCompetitive, pl, g2, "", three(fig{5000, compCost - 5000, 5000})...)
	return s
}

// want checks claim id on cfgs: its verdict, and its reason naming why
// ("" for any).
func want(t *testing.T, what string, cfgs []*results.Config, id, verdict, why string) {
	t.Helper()
	if c := claimtest.Find(t, Claims(cfgs), id); c.Verdict != verdict || !strings.Contains(c.Why, why) {
		t.Errorf("%s: %s, %q (%s), want %s, %q", what, c.Verdict, c.Why, c.Evidence, verdict, why)
	}
}

func TestClaimPastCompetitive(t *testing.T) {
	// The 20 µs and 50 µs budgets lie between C (10 µs) and the 100 µs gap.
	want(t, "no gain past C", crossCore(5000, 15000).cfgs, ClaimPastCompetitive, results.Holds, "")
	// The 50 µs budget catches a signal it should not: it buys latency.
	want(t, "a budget past C that buys latency", crossCore(300, 15000).cfgs, ClaimPastCompetitive, results.DoesNotHold, "budget 50µs latency")
	// Without the cross-core placement: not evaluated.
	want(t, "no configurations", nil, ClaimPastCompetitive, results.NotEvaluated, "")
}

func TestClaimCompetitive2x(t *testing.T) {
	// At 100 µs the best fixed budget is 0 (10 µs); the rule pays 15 µs.
	want(t, "1.5x", crossCore(5000, 15000).cfgs, ClaimCompetitive2x, results.Holds, "")
	want(t, "2.5x", crossCore(5000, 25000).cfgs, ClaimCompetitive2x, results.DoesNotHold, "gap 100µs competitive/best 2.50x")
	// Rounds on both sides of 2x: near its limit.
	s := crossCore(5000, 15000)
	for _, cf := range s.cfgs {
		if cf.Impl == RowCompetitive && cf.Params["gap"] == "100µs" {
			cf.Rounds = rounds(fig{5000, 10000, 5000}.metrics(), fig{5000, 16000, 5000}.metrics(), fig{5000, 18000, 5000}.metrics())
		}
	}
	if c := claimtest.Find(t, Claims(s.cfgs), ClaimCompetitive2x); !c.Near {
		t.Errorf("rounds 1.5x, 2.1x, 2.3x: not near its limit (%s, %s)", c.Verdict, c.Margin)
	}
}

// oversub is a run on one CPU with a park + wake cost of 3 µs, at a gap of
// 50 µs: park-at-once resumes 2 µs late on 2 µs of CPU; spinFig is every
// longer budget's.
func oversub(spinFig fig) *synth {
	s := &synth{}
	const pl = Oversubscribed
	g := 50 * time.Microsecond
	s.add(RowPingPong, pl, 0, "", three(fig{2000, 1000, 0})...)
	s.add(RowFixed, pl, time.Microsecond, "0", three(fig{2000, 2000, 2000})...)
	s.add(RowFixed, pl, time.Microsecond, "unbounded", three(fig{100, 100, 100})...)
	s.add(RowFixed, pl, g, "0", three(fig{2000, 2000, 2000})...)
	s.add(RowFixed, pl, g, "16µs", three(spinFig)...)
	s.add(RowFixed, pl, g, "unbounded", three(spinFig)...)
	return s
}

func TestClaimOversubscribed(t *testing.T) {
	// The 1 µs gap is shorter than C: left out (unbounded wins there).
	want(t, "spinning costs CPU", oversub(fig{2000, 16000, 2000}).cfgs, ClaimOversubscribed, results.Holds, "")
	want(t, "spinning cheaper than parking", oversub(fig{3000, 100, 3000}).cfgs, ClaimOversubscribed, results.DoesNotHold, "")
	want(t, "no oversubscribed placement", crossCore(5000, 15000).cfgs, ClaimOversubscribed, results.NotEvaluated, "")
}

func TestKneeAndAnswers(t *testing.T) {
	s := crossCore(5000, 15000)
	p := find(byPlacement(s.cfgs), CrossCore)
	b, lat, ok := Knee(p.fixed[2*time.Microsecond])
	if !ok || b != 4*time.Microsecond || lat != 300 {
		t.Errorf("gap 2µs: knee %v at %v ns, want 4µs at 300", b, lat)
	}
	// At 100 µs only the unbounded spinner catches the signal.
	if b, _, _ := Knee(p.fixed[100*time.Microsecond]); b != Unbounded {
		t.Errorf("gap 100µs: knee %v, want unbounded", BudgetLabel(b))
	}
	notes := strings.Join(Answers(s.cfgs), "\n")
	for _, want := range []string{"competitive budget 10.00 µs", "gap 2µs: stops improving at budget 4µs (0.30 µs; parking at once 5.00 µs)"} {
		if !strings.Contains(notes, want) {
			t.Errorf("answers lack %q:\n%s", want, notes)
		}
	}
}

func TestClosest(t *testing.T) {
	fs := []Folklore{{"a", 1000}, {"b", 8000}, {"c", 30000}}
	if f, ok := Closest(fs, 12000); !ok || f.Name != "b" {
		t.Errorf("closest to 12 µs: %v", f)
	}
	if f, ok := Closest(fs, 25000); !ok || f.Name != "c" {
		t.Errorf("closest to 25 µs: %v", f)
	}
	if _, ok := Closest(nil, 1); ok {
		t.Errorf("closest of none")
	}
}
