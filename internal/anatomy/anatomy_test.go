package anatomy

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// The synthetic streams: waker W on cpu 0 wakes wakee E on cpu 1. Times are
// ns; the answers are known by construction.
const (
	W, E = 10, 20
	T0   = 1000
)

func sleepOut(t int64, next int32) ktrace.Event {
	return ktrace.Event{Time: t, Kind: ktrace.Switch, A: E, B: int64(next), C: 1, TID: E, CPU: 1}
}
func switchIn(t int64, prev int32) ktrace.Event {
	return ktrace.Event{Time: t, Kind: ktrace.Switch, A: int64(prev), B: E, TID: prev, CPU: 1}
}
func waking(t int64, by int32) ktrace.Event {
	return ktrace.Event{Time: t, Kind: ktrace.Waking, A: E, B: 1, TID: by, CPU: 0}
}
func idle(t int64, state int64) ktrace.Event {
	return ktrace.Event{Time: t, Kind: ktrace.CPUIdle, A: state, B: 1, CPU: 1}
}

// idleStream: E sleeps at 100, cpu 1 enters state 1 at 110; W's clock at
// 1000, its sched_waking at 1500, cpu 1 leaves idle at 20000, E switched
// in at 22000, E reads its clock at 25000.
func idleStream() []ktrace.Event {
	return []ktrace.Event{
		sleepOut(100, 0), idle(110, 1),
		{Time: 1100, Kind: ktrace.FutexEnter, A: 129, TID: W, CPU: 0},
		waking(1500, W),
		{Time: 1600, Kind: ktrace.IPISend, A: 1, TID: W, CPU: 0},
		idle(20000, ktrace.IdleExit),
		switchIn(22000, 0),
		{Time: 23000, Kind: ktrace.FutexExit, TID: E, CPU: 1},
	}
}

func join(t *testing.T, ev []ktrace.Event, w Wake) Parts {
	t.Helper()
	return Index(ev, []int32{W, E}).Join(w)
}

var wake = Wake{Waker: W, Wakee: E, T0: T0, T1: 25000}

func TestIdleWake(t *testing.T) {
	// Shuffled across CPUs: Index sorts by time.
	ev := idleStream()
	ev[0], ev[len(ev)-1] = ev[len(ev)-1], ev[0]
	p := join(t, ev, wake)
	want := [5]int64{500, 18500, 2000, 3000, 0}
	if p.Outcome != Idle || p.Ns != want || p.IdleState != 1 || p.CPU != 1 {
		t.Fatalf("got %+v, want idle state 1 on cpu 1 with %v", p, want)
	}
	if p.Total() != wake.T1-wake.T0 {
		t.Fatalf("components sum to %d, want t1-t0 = %d", p.Total(), wake.T1-wake.T0)
	}
}

func TestBusyWake(t *testing.T) {
	ev := []ktrace.Event{sleepOut(100, 99), waking(1500, W), switchIn(9000, 99)}
	p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 10000})
	if want := [5]int64{500, 0, 7500, 1000, 0}; p.Outcome != Busy || p.Ns != want {
		t.Fatalf("got %+v, want busy %v", p, want)
	}
}

func TestBusyWithoutCPUHistory(t *testing.T) {
	// No idle event on cpu 1 at all (a loaded machine): the task E
	// followed ran from before the wake, nothing idle in between.
	ev := []ktrace.Event{
		{Time: 100, Kind: ktrace.Switch, A: E, B: 99, C: 1, TID: E, CPU: 1},
		waking(1500, W), switchIn(9000, 99),
	}
	tr := Index(ev, []int32{W, E})
	tr.cpu[1] = nil // as if the switch-out had not said what ran next
	if p := tr.Join(Wake{Waker: W, Wakee: E, T0: T0, T1: 10000}); p.Outcome != Busy {
		t.Fatalf("got %+v, want busy", p)
	}
}

func TestIdleLoopNoState(t *testing.T) {
	// cpu 1 ran the idle task but had left its idle state: no idle exit
	// to wait for.
	ev := []ktrace.Event{sleepOut(100, 0), idle(110, 1), idle(900, ktrace.IdleExit), waking(1500, W), switchIn(3000, 0)}
	p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 4000})
	if want := [5]int64{500, 0, 1500, 1000, 0}; p.Outcome != Idle || p.Ns != want || p.IdleState != -1 {
		t.Fatalf("got %+v, want idle (no state) %v", p, want)
	}
}

func TestResidual(t *testing.T) {
	// Switched in at 22000, preempted at 23000 (R+), back at 24000.
	ev := append(idleStream(),
		ktrace.Event{Time: 23000, Kind: ktrace.Switch, A: E, B: 77, C: 0x100, TID: E, CPU: 1},
		ktrace.Event{Time: 24000, Kind: ktrace.Switch, A: 77, B: E, TID: 77, CPU: 1})
	p := join(t, ev, wake)
	if want := [5]int64{500, 18500, 2000, 2000, 1000}; p.Outcome != Idle || p.Ns != want {
		t.Fatalf("got %+v, want %v", p, want)
	}
}

func TestNoSleepCounted(t *testing.T) {
	w := wake
	w.NoSleep = true
	if p := join(t, idleStream(), w); p.Outcome != NoSleep || p.Total() != 0 {
		t.Fatalf("got %+v, want no-sleep, no components", p)
	}
}

func without(ev []ktrace.Event, drop func(ktrace.Event) bool) []ktrace.Event {
	var out []ktrace.Event
	for _, e := range ev {
		if !drop(e) {
			out = append(out, e)
		}
	}
	return out
}

// The bad streams: each must be flagged with its reason, never decomposed.
func TestFlagged(t *testing.T) {
	cases := []struct {
		name string
		ev   []ktrace.Event
		w    Wake
		want Outcome
		why  string
	}{
		{"no waking", without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.Waking }), wake, Missing, "no sched_waking"},
		{"no switch-in", without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.Switch && e.B == E }), wake, Missing, "no sched_switch to"},
		{"the wakee's cpu traces no idle loop", without(idleStream(), func(e ktrace.Event) bool {
			return e.Kind == ktrace.CPUIdle || (e.Kind == ktrace.Switch && e.B == E)
		}), wake, Missing, "cpu 1 traced no idle loop"},
		{"no idle exit", without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.CPUIdle && e.A == ktrace.IdleExit }), wake, Missing, "no cpu_idle exit"},
		{"no sleep before", without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.Switch && e.A == E }), wake, Missing, "before its wake"},
		{"wrong tid", append(without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.Waking }), waking(1500, 30)), wake, WrongTID, "by tid 30"},
		{"wakee is another thread", idleStream(), Wake{Waker: W, Wakee: 21, T0: T0, T1: 25000}, Missing, "tid 21"},
		{"lost records", append(idleStream(), ktrace.Event{Time: 900, B: 1200, Kind: ktrace.Lost, A: 3, CPU: 0}), wake, Lost, "lost"},
		{"lost before the wake's sleep", append(idleStream(), ktrace.Event{Time: 50, B: 200, Kind: ktrace.Lost, A: 1, CPU: 1}), wake, Lost, "lost"},
		{"out of order across cpus", append(without(idleStream(), func(e ktrace.Event) bool { return e.Kind == ktrace.Switch && e.B == E }), switchIn(1400, 0)), wake, OutOfOrder, "before the sched_waking"},
		{"t1 before t0", idleStream(), Wake{Waker: W, Wakee: E, T0: 5000, T1: 4000}, OutOfOrder, "before t0"},
		{"switched out, not back", append(idleStream(), ktrace.Event{Time: 24000, Kind: ktrace.Switch, A: E, B: 0, C: 1, TID: E, CPU: 1}), wake, Missing, "not back in"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := join(t, c.ev, c.w)
			if p.Outcome != c.want || !strings.Contains(p.Why, c.why) || p.Total() != 0 {
				t.Fatalf("got %v (%q, %v), want %v naming %q with no components", p.Outcome, p.Why, p.Ns, c.want, c.why)
			}
			if !p.Outcome.Flagged() {
				t.Fatalf("%v is not a flagged outcome", p.Outcome)
			}
		})
	}
}

func TestCPUStateUnknown(t *testing.T) {
	// cpu 1's idle history is not in the trace and the switch came from
	// the idle task: idle or not at the wake cannot be told.
	tr := Index(idleStream(), []int32{W, E})
	tr.cpu[1] = nil
	if p := tr.Join(wake); p.Outcome != Missing || !strings.Contains(p.Why, "state at the wake") {
		t.Fatalf("got %+v, want missing: cpu state", p)
	}
}

func TestAwake(t *testing.T) {
	// E slept at 100, was woken (by an earlier call) at 500, ran from
	// 600: the wake at 1500 finds it on a CPU. Counted, not decomposed.
	ev := []ktrace.Event{sleepOut(100, 0), idle(110, 1), waking(500, W), idle(550, ktrace.IdleExit), switchIn(600, 0), waking(1500, W)}
	if p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 2000}); p.Outcome != Awake || p.Total() != 0 {
		t.Fatalf("got %+v, want awake", p)
	}
}

func TestSummarize(t *testing.T) {
	tr := Index(idleStream(), []int32{W, E})
	parts := []Parts{tr.Join(wake), tr.Join(wake), {Outcome: Busy, Ns: [5]int64{100, 0, 300, 200, 0}},
		{Outcome: NoSleep}, flag(Missing, "x")}
	s := Summarize(parts, []int64{24000, 24000, 600, 500})
	if s.Counts[Idle] != 2 || s.Counts[Busy] != 1 || s.Counts[NoSleep] != 1 || s.Flagged() != 1 || s.Decomposed() != 3 {
		t.Fatalf("counts %v", s.Counts)
	}
	if want := [5]float64{500, 18500, 2000, 3000, 0}; s.Median != want {
		t.Fatalf("medians %v, want %v", s.Median, want)
	}
	if s.SumMedian() != 24000 || s.MeasuredMedian != 600 || s.RQWaitMedian != 300 {
		t.Fatalf("sum %v measured %v rq %v", s.SumMedian(), s.MeasuredMedian, s.RQWaitMedian)
	}
	m := map[string]float64{}
	s.Metrics(m, 7)
	for _, k := range []string{MedianKey(IdleExit), P99Key(Call), MSumMedian, MSumOff, MIdleShare, MRQWaitMedian} {
		if _, ok := m[k]; !ok {
			t.Errorf("metric %s missing", k)
		}
	}
	if m[MLostRecords] != 7 || m[MFlagged] != 1 || m[MSumOff] != 24000.0/600-1 {
		t.Fatalf("metrics %v", m)
	}
	if !strings.Contains(s.FlagLine(), "1 missing (1: x)") {
		t.Fatalf("flag line %q", s.FlagLine())
	}
	// Nothing decomposed: counts only, no component figure.
	m = map[string]float64{}
	Summarize([]Parts{{Outcome: NoSleep}}, nil).Metrics(m, 0)
	if _, ok := m[MedianKey(Call)]; ok || m[MNoSleep] != 1 {
		t.Fatalf("metrics of nothing decomposed: %v", m)
	}
}

func TestFlagLineCountsEachReason(t *testing.T) {
	tr := Index(nil, []int32{W, E})
	var parts []Parts
	for i := 0; i < 3; i++ {
		parts = append(parts, tr.Join(Wake{Waker: W, Wakee: E, T0: int64(1000 * i), T1: int64(1000*i + 500)}))
	}
	parts = append(parts, flag(Missing, "cpu %d's state at the wake is not in the trace", 1))
	got := Summarize(parts, nil).FlagLine()
	want := "4 missing (3: no sched_waking of tid 20 by tid 10 between t0 and t1; 1: cpu 1's state at the wake is not in the trace)"
	if got != want {
		t.Fatalf("flag line\n%q, want\n%q", got, want)
	}
}

func TestOnCPUThroughoutIsAwake(t *testing.T) {
	// E switched in at 500 and still on its CPU at t1: whatever its wait
	// returned, it never slept in the kernel, and no sched_waking came
	// (try_to_wake_up found it running). Awake, not missing.
	ev := []ktrace.Event{sleepOut(100, 0), switchIn(500, 0)}
	if p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 4000}); p.Outcome != Awake {
		t.Fatalf("got %+v, want awake", p)
	}
	// Asleep at t0 and no wake: a record is missing.
	ev = []ktrace.Event{sleepOut(100, 0), switchIn(3000, 0)}
	if p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 4000}); p.Outcome != Missing {
		t.Fatalf("got %+v, want missing", p)
	}
	// On a CPU at t0 but switched out and in again before t1 with no
	// sched_waking: a record is missing.
	ev = []ktrace.Event{sleepOut(100, 0), switchIn(500, 0), sleepOut(1500, 0), switchIn(3000, 0)}
	if p := join(t, ev, Wake{Waker: W, Wakee: E, T0: T0, T1: 4000}); p.Outcome != Missing {
		t.Fatalf("got %+v, want missing", p)
	}
}

// A Pool fed round by round, reset between rounds for the round's own
// figures, gives what Summarize gives for the same wakes; a Summary's maps
// are its own (a Reset or a later flag does not change them).
func TestPoolRounds(t *testing.T) {
	tr := Index(idleStream(), []int32{W, E})
	round1 := []Parts{tr.Join(wake), {Outcome: Busy, Ns: [5]int64{100, 0, 300, 200, 0}}, flag(Missing, "x")}
	round2 := []Parts{{Outcome: Busy, Ns: [5]int64{200, 0, 900, 100, 0}}, {Outcome: NoSleep}, tr.Join(wake)}
	measured1, measured2 := []int64{24000, 600}, []int64{1200, 24000}
	var pooled, round Pool
	var s1 Summary
	for i, r := range [][]Parts{round1, round2} {
		round.Reset()
		for _, p := range r {
			pooled.Add(p)
			round.Add(p)
		}
		for _, v := range [][]int64{measured1, measured2}[i] {
			pooled.Measured(v)
			round.Measured(v)
		}
		if i == 0 {
			s1 = round.Summary()
		}
	}
	if want := Summarize(round2, measured2); round.Summary().Median != want.Median || round.Summary().Counts != want.Counts {
		t.Fatalf("round 2 after Reset: %+v, want %+v", round.Summary(), want)
	}
	all := append(append([]Parts(nil), round1...), round2...)
	want := Summarize(all, append(append([]int64(nil), measured1...), measured2...))
	got := pooled.Summary()
	if got.Median != want.Median || got.P99 != want.P99 || got.Counts != want.Counts || got.MeasuredMedian != want.MeasuredMedian ||
		got.RQWaitMedian != want.RQWaitMedian || got.FlagLine() != want.FlagLine() || pooled.Wakes() != len(all) {
		t.Fatalf("pooled %+v, want %+v", got, want)
	}
	if s1.FlagLine() != "1 missing (1: x)" || s1.IdleStates[1] != 1 {
		t.Fatalf("round 1's summary changed after the pool went on: %q %v", s1.FlagLine(), s1.IdleStates)
	}
}
