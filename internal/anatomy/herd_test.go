package anatomy

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// Herd streams: three waiters (tids 31, 32, 33) asleep on cpu 1 before the
// notify at 1000; a stream is a list of (time, tid, in/out-state).
func hsw(t int64, tid int32, in bool, state int64) ktrace.Event {
	if in {
		return ktrace.Event{Time: t, Kind: ktrace.Switch, A: 99, B: int64(tid), TID: 99, CPU: 1}
	}
	return ktrace.Event{Time: t, Kind: ktrace.Switch, A: int64(tid), B: 99, C: state, TID: tid, CPU: 1}
}

const (
	hS = 1 // TASK_INTERRUPTIBLE
	hR = 0 // preempted (running)
)

var herdTIDs = []int32{31, 32, 33}

func asleepBefore() []ktrace.Event {
	return []ktrace.Event{hsw(100, 31, false, hS), hsw(110, 32, false, hS), hsw(120, 33, false, hS)}
}

// broadcastStream: all three switched in right after the notify; 32 and 33
// find the mutex taken and sleep again, then come back in turn.
func broadcastStream() ([]ktrace.Event, []HerdWaiter) {
	ev := append(asleepBefore(),
		hsw(1100, 31, true, 0),
		hsw(1200, 32, true, 0), hsw(1300, 32, false, hS),
		hsw(1400, 33, true, 0), hsw(1500, 33, false, hS),
		hsw(21000, 32, true, 0),
		hsw(41000, 33, true, 0),
	)
	return ev, []HerdWaiter{{31, 1150}, {32, 21050}, {33, 41050}}
}

// requeueStream: each waiter is switched in once, after the previous one's
// release, and acquires at once.
func requeueStream() ([]ktrace.Event, []HerdWaiter) {
	ev := append(asleepBefore(),
		hsw(1100, 31, true, 0),
		hsw(21000, 32, true, 0),
		hsw(41000, 33, true, 0),
	)
	return ev, []HerdWaiter{{31, 1150}, {32, 21050}, {33, 41050}}
}

func TestHerdBroadcastSleepsAgain(t *testing.T) {
	ev, ws := broadcastStream()
	c := Index(ev, herdTIDs).Herd(1000, ws)
	if c.Traced != 3 || c.Flagged != 0 || c.SleptAgain != 2 || c.Resleeps != 2 {
		t.Fatalf("broadcast: got %+v, want 3 traced, 2 slept again", c)
	}
	if c.Waiters[0].SleptAgain || !c.Waiters[1].SleptAgain || !c.Waiters[2].SleptAgain {
		t.Fatalf("broadcast: the first waiter acquired at once and the two others slept again; got %+v", c.Waiters)
	}
}

func TestHerdRequeueNone(t *testing.T) {
	ev, ws := requeueStream()
	c := Index(ev, herdTIDs).Herd(1000, ws)
	if c.Traced != 3 || c.Flagged != 0 || c.SleptAgain != 0 || c.Resleeps != 0 {
		t.Fatalf("requeue: got %+v, want 3 traced, none slept again", c)
	}
}

func TestHerdPreemptionIsNotASleep(t *testing.T) {
	// 32 is preempted (state R) on its way to the mutex: not a sleep.
	ev, ws := requeueStream()
	ev = append(ev, hsw(21010, 32, false, hR), hsw(21020, 32, true, 0))
	c := Index(ev, herdTIDs).Herd(1000, ws)
	if c.SleptAgain != 0 || c.Traced != 3 || c.Runnable != 1 {
		t.Fatalf("a preemption counted as a sleep: %+v", c)
	}
}

func TestHerdTraceBeganAfterTheSleeps(t *testing.T) {
	// The trace is enabled after the harness saw every waiter asleep: no
	// switch before the notify at all.
	ev, ws := broadcastStream()
	c := Index(ev[3:], herdTIDs).Herd(1000, ws)
	if c.Traced != 3 || c.SleptAgain != 2 {
		t.Fatalf("got %+v, want 3 traced, 2 slept again", c)
	}
}

func TestHerdFlagged(t *testing.T) {
	cases := []struct {
		name string
		edit func([]ktrace.Event, []HerdWaiter) ([]ktrace.Event, []HerdWaiter)
		why  string
	}{
		{"switch-in missing", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			return remove(ev, 21000), ws
		}, "no sched_switch to tid 32"},
		{"running at the notify", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			return append(ev, hsw(500, 32, true, 0)), ws
		}, "tid 32 was not asleep at the notify"},
		{"preempted, not asleep, at the notify", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			return append(ev, hsw(500, 32, true, 0), hsw(600, 32, false, hR)), ws
		}, "tid 32 was not asleep at the notify"},
		{"lost records", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			return append(ev, ktrace.Event{Kind: ktrace.Lost, Time: 5000, B: 6000, A: 3, CPU: 0}), ws
		}, "records were lost"},
		{"switched out at its hold", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			return append(ev, hsw(21040, 32, false, hS)), ws
		}, "switched out at its hold"},
		{"wrong tid: the hold is another thread's", func(ev []ktrace.Event, ws []HerdWaiter) ([]ktrace.Event, []HerdWaiter) {
			ws = append([]HerdWaiter(nil), ws...)
			ws[1].TID = 77
			return ev, ws
		}, "no sched_switch to tid 77"},
	}
	for _, tc := range cases {
		ev, ws := requeueStream()
		ev, ws = tc.edit(ev, ws)
		tids := append([]int32(nil), herdTIDs...)
		for _, w := range ws {
			tids = append(tids, w.TID)
		}
		c := Index(ev, tids).Herd(1000, ws)
		if c.Flagged == 0 || !strings.Contains(c.Why, tc.why) {
			t.Errorf("%s: got %+v, want a flagged waiter (%q)", tc.name, c, tc.why)
		}
		if c.Traced+c.Flagged != 3 {
			t.Errorf("%s: %d traced + %d flagged, want 3 waiters", tc.name, c.Traced, c.Flagged)
		}
	}
}

func remove(ev []ktrace.Event, t int64) []ktrace.Event {
	var out []ktrace.Event
	for _, e := range ev {
		if e.Time != t {
			out = append(out, e)
		}
	}
	return out
}
