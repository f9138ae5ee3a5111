// Package anatomy splits a measured wake into the kernel's parts: it joins
// the tracepoints internal/ktrace recorded with parkbench's own clock
// readings of the same wake (the waker's t0 before its wake call, the
// wakee's t1 after its wait returned; both CLOCK_MONOTONIC, the trace's
// clock too) and attributes each interval between them to one component:
//
//	call      t0 -> sched_waking of the wakee by the waker (user code, the
//	          syscall entry, the kernel's futex and try_to_wake_up)
//	idle_exit sched_waking -> power:cpu_idle exit on the wakee's CPU, when
//	          that CPU sat in an idle state (the IPI, a halted vCPU run
//	          again by the host, the C-state exit on bare metal); 0 otherwise
//	schedule  idle exit (or sched_waking) -> sched_switch to the wakee; on a
//	          busy CPU this is the run-queue wait
//	return    sched_switch to the wakee -> t1, less any time the wakee was
//	          switched out again before t1 (the futex's return, the Go
//	          runtime's exitsyscall, the mechanism's loop, the clock read)
//	residual  the time the wakee spent switched out between its switch-in
//	          and t1 (preempted, or the Go runtime's P handoff): the part
//	          the chain of the wake itself cannot place
//
// Per wake the components sum to t1 - t0 exactly; the check the table
// prints is the sum of the components' medians against the median of the
// measured wakes. A wake the trace cannot decompose without guessing is
// flagged with its reason (a missing event, events out of order across
// CPUs, records lost in its window, a wake by a thread that is not the
// waker), never attributed; a wait that never slept is counted only.
package anatomy

import (
	"cmp"
	"fmt"
	"slices"
	"sort"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// Wake is one measured wake: who woke whom, and parkbench's two clock
// readings (CLOCK_MONOTONIC ns).
type Wake struct {
	Waker, Wakee int32
	T0, T1       int64
	// NoSleep: the wait returned without sleeping (counted, not
	// decomposed).
	NoSleep bool
}

// Outcome is what the join made of a wake.
type Outcome uint8

const (
	// Idle: decomposed; the wakee's CPU was idle at the wake.
	Idle Outcome = iota
	// Busy: decomposed; the wakee's CPU ran another task (run-queue wait).
	Busy
	// NoSleep: the wait never slept (counted).
	NoSleep
	// Awake: the wakee was not asleep when woken (still on its way into
	// the sleep, or already runnable): no switch to place (counted).
	Awake
	// Flagged outcomes: not decomposed.
	Missing
	OutOfOrder
	Lost
	WrongTID
	nOutcomes
)

var outcomeNames = [...]string{"idle", "busy", "no-sleep", "awake", "missing", "out-of-order", "lost", "wrong-tid"}

func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome%d", o)
}

// Decomposed reports whether o carries components.
func (o Outcome) Decomposed() bool { return o == Idle || o == Busy }

// Flagged reports whether o is a wake the trace could not attribute.
func (o Outcome) Flagged() bool { return o >= Missing && o < nOutcomes }

// Component names, in order.
const (
	Call     = "call"
	IdleExit = "idle_exit"
	Schedule = "schedule"
	Return   = "return"
	Residual = "residual"
)

// Components are the component names in the order of a wake.
var Components = []string{Call, IdleExit, Schedule, Return, Residual}

// Parts is one joined wake.
type Parts struct {
	Outcome Outcome
	// Ns per component, in Components order (decomposed outcomes only).
	Ns [5]int64
	// IdleState is the cpu_idle state the wakee's CPU sat in (Idle; -1:
	// the idle task ran but had not entered a state).
	IdleState int64
	CPU       int
	// Why names the flag's reason (flagged outcomes); code is its
	// format, the reason without the figures (Summary counts by it).
	Why  string
	code string
}

// Total is the components' sum (t1 - t0 for a decomposed wake).
func (p Parts) Total() int64 {
	var s int64
	for _, v := range p.Ns {
		s += v
	}
	return s
}

type sw struct {
	t        int64
	in       bool // the thread was switched in (next_pid)
	cpu      int
	state    int64 // prev_state of a switch-out
	prev     int32 // prev_pid of a switch-in
	sleeping bool  // a switch-out into a sleep (not a preemption)
}

type wk struct {
	t     int64
	waker int32
	cpu   int
}

// cpuEv is an event that says whether a CPU is idle.
type cpuEv struct {
	t     int64
	kind  uint8 // cpuEnter (B: state), cpuExit, toIdle, toTask
	state int64
}

const (
	cpuEnter uint8 = iota
	cpuExit
	toIdle
	toTask
)

type window struct{ from, to int64 }

// Trace is a recorded window indexed for joining.
type Trace struct {
	sw   map[int32][]sw
	wk   map[int32][]wk
	cpu  map[int][]cpuEv
	lost []window
	// idleTraced: the CPUs whose idle loop left a record (a cpu_idle, or
	// a switch from the idle task). A guest kernel may trace neither on
	// a CPU (seen on the AMD EPYC f25m17 guest's CPU 1, by perf stat as
	// well, docs/anatomy.md); a wake onto such a CPU has no switch-in to
	// find, and the flag says why.
	idleTraced map[int]bool
}

// taskSleeping: prev_state bits of a sleep (S, D, stopped, traced, dead,
// zombie, parked); 0 (R) and TASK_REPORT_MAX (0x100, "R+": preempted) are
// not.
func taskSleeping(state int64) bool { return state&0x7f != 0 }

// Index sorts events by time and indexes those of tids (and every CPU's
// idle events).
//
// What it allocates is sized by a first pass over the events (a round's
// index is the largest thing a traced round allocates: docs/anatomy.md,
// "Memory"), so no slice grows by doubling.
func Index(events []ktrace.Event, tids []int32) *Trace {
	return IndexInPlace(slices.Clone(events), tids)
}

// IndexInPlace is Index sorting events in place (their order is the
// caller's no more): the copy Index makes is a round's records over again.
func IndexInPlace(ev []ktrace.Event, tids []int32) *Trace {
	slices.SortStableFunc(ev, func(a, b ktrace.Event) int { return cmp.Compare(a.Time, b.Time) })
	want := map[int32]bool{}
	for _, t := range tids {
		want[t] = true
	}
	nsw, nwk, ncpu := map[int32]int{}, map[int32]int{}, map[int]int{}
	for _, e := range ev {
		switch e.Kind {
		case ktrace.Waking:
			if want[int32(e.A)] {
				nwk[int32(e.A)]++
			}
		case ktrace.Switch:
			prev, next := int32(e.A), int32(e.B)
			if want[prev] {
				nsw[prev]++
			}
			if want[next] {
				nsw[next]++
			}
			if next == 0 || prev == 0 || want[next] || want[prev] {
				ncpu[int(e.CPU)]++
			}
		case ktrace.CPUIdle:
			ncpu[int(e.CPU)]++
		}
	}
	tr := &Trace{sw: map[int32][]sw{}, wk: map[int32][]wk{}, cpu: map[int][]cpuEv{}, idleTraced: map[int]bool{}}
	for t, n := range nsw {
		tr.sw[t] = make([]sw, 0, n)
	}
	for t, n := range nwk {
		tr.wk[t] = make([]wk, 0, n)
	}
	for c, n := range ncpu {
		tr.cpu[c] = make([]cpuEv, 0, n)
	}
	for _, e := range ev {
		cpu := int(e.CPU)
		switch e.Kind {
		case ktrace.Lost:
			tr.lost = append(tr.lost, window{e.Time, e.B})
		case ktrace.Waking:
			if p := int32(e.A); want[p] {
				tr.wk[p] = append(tr.wk[p], wk{t: e.Time, waker: e.TID, cpu: cpu})
			}
		case ktrace.Switch:
			prev, next := int32(e.A), int32(e.B)
			if prev == 0 {
				tr.idleTraced[cpu] = true
			}
			if want[prev] {
				tr.sw[prev] = append(tr.sw[prev], sw{t: e.Time, cpu: cpu, state: e.C, sleeping: taskSleeping(e.C)})
			}
			if want[next] {
				tr.sw[next] = append(tr.sw[next], sw{t: e.Time, in: true, cpu: cpu, prev: prev})
			}
			switch {
			case next == 0:
				tr.cpu[cpu] = append(tr.cpu[cpu], cpuEv{t: e.Time, kind: toIdle})
			case prev == 0 || want[next] || want[prev]:
				tr.cpu[cpu] = append(tr.cpu[cpu], cpuEv{t: e.Time, kind: toTask})
			}
		case ktrace.CPUIdle:
			tr.idleTraced[cpu] = true
			c := cpuEv{t: e.Time, kind: cpuEnter, state: e.A}
			if e.A == ktrace.IdleExit {
				c.kind = cpuExit
			}
			tr.cpu[cpu] = append(tr.cpu[cpu], c)
		}
	}
	return tr
}

// lostIn reports whether records were lost anywhere in [a, b].
func (tr *Trace) lostIn(a, b int64) bool {
	for _, w := range tr.lost {
		if w.from <= b && w.to >= a {
			return true
		}
	}
	return false
}

// cpuState is what cpu was doing at t: the last of its idle events before
// t. ok is false when none was recorded.
func (tr *Trace) cpuState(cpu int, t int64) (cpuEv, bool) {
	evs := tr.cpu[cpu]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].t >= t })
	if i == 0 {
		return cpuEv{}, false
	}
	return evs[i-1], true
}

// cpuEventsIn reports whether cpu has idle events in [a, b).
func (tr *Trace) cpuEventsIn(cpu int, a, b int64) bool {
	evs := tr.cpu[cpu]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].t >= a })
	for ; i < len(evs) && evs[i].t < b; i++ {
		if evs[i].kind != toTask {
			return true
		}
	}
	return false
}

// firstIdleExit is the first cpu_idle exit on cpu in (a, b].
func (tr *Trace) firstIdleExit(cpu int, a, b int64) (int64, bool) {
	evs := tr.cpu[cpu]
	i := sort.Search(len(evs), func(i int) bool { return evs[i].t > a })
	for ; i < len(evs) && evs[i].t <= b; i++ {
		if evs[i].kind == cpuExit {
			return evs[i].t, true
		}
	}
	return 0, false
}

func flag(o Outcome, format string, a ...any) Parts {
	return Parts{Outcome: o, Why: fmt.Sprintf(format, a...), code: format, IdleState: -1, CPU: -1}
}

// Join decomposes one wake.
func (tr *Trace) Join(w Wake) Parts {
	if w.NoSleep {
		return Parts{Outcome: NoSleep, IdleState: -1, CPU: -1}
	}
	if w.T1 < w.T0 {
		return flag(OutOfOrder, "t1 %d before t0 %d", w.T1, w.T0)
	}
	if tr.lostIn(w.T0, w.T1) {
		return flag(Lost, "records were lost between t0 and t1")
	}
	// The wake: the first sched_waking of the wakee by the waker in
	// [t0, t1].
	wks := tr.wk[w.Wakee]
	i := sort.Search(len(wks), func(i int) bool { return wks[i].t >= w.T0 })
	var waking *wk
	var other int32
	for ; i < len(wks) && wks[i].t <= w.T1; i++ {
		if wks[i].waker == w.Waker {
			waking = &wks[i]
			break
		}
		if other == 0 {
			other = wks[i].waker
		}
	}
	if waking == nil {
		// The wakee on a CPU from before t0 to t1 (switched in before
		// t0, no switch of it in [t0, t1]): it never slept in the
		// kernel, whatever its wait returned (woken on its way into
		// the sleep, before the kernel switched it out: the waker's
		// try_to_wake_up found it running and traced no sched_waking).
		// Counted as awake, not flagged.
		sws := tr.sw[w.Wakee]
		k := sort.Search(len(sws), func(k int) bool { return sws[k].t >= w.T0 })
		if k > 0 && sws[k-1].in && (k == len(sws) || sws[k].t > w.T1) && !tr.lostIn(sws[k-1].t, w.T1) {
			return Parts{Outcome: Awake, IdleState: -1, CPU: sws[k-1].cpu}
		}
		if other != 0 {
			return flag(WrongTID, "tid %d was woken by tid %d, not by the waker %d", w.Wakee, other, w.Waker)
		}
		return flag(Missing, "no sched_waking of tid %d by tid %d between t0 and t1", w.Wakee, w.Waker)
	}
	// The wakee's state at the wake: its last switch before it.
	sws := tr.sw[w.Wakee]
	j := sort.Search(len(sws), func(j int) bool { return sws[j].t >= waking.t })
	if j == 0 {
		return flag(Missing, "no sched_switch of tid %d before its wake", w.Wakee)
	}
	last := sws[j-1]
	if tr.lostIn(min(last.t, w.T0), w.T1) {
		return flag(Lost, "records were lost around the wake")
	}
	if last.in {
		// On a CPU at the wake. A switch-in must follow a wake of a
		// sleeping thread; one before the wake that woke it is a clock
		// out of order across CPUs.
		if j >= 2 && !sws[j-2].in && sws[j-2].sleeping && !tr.wokenIn(w.Wakee, sws[j-2].t, last.t) {
			return flag(OutOfOrder, "tid %d switched in on cpu %d %d ns before the sched_waking that woke it (cpu %d)",
				w.Wakee, last.cpu, waking.t-last.t, waking.cpu)
		}
		return Parts{Outcome: Awake, IdleState: -1, CPU: last.cpu}
	}
	if !last.sleeping {
		return Parts{Outcome: Awake, IdleState: -1, CPU: last.cpu}
	}
	// The switch-in that ends the sleep.
	if j >= len(sws) || !sws[j].in || sws[j].t > w.T1 {
		if !tr.idleTraced[last.cpu] {
			return flag(Missing, "no sched_switch to tid %d between its wake and t1: its cpu %d traced no idle loop (no cpu_idle, no switch from the idle task: this kernel does not trace it there)", w.Wakee, last.cpu)
		}
		return flag(Missing, "no sched_switch to tid %d between its wake and t1", w.Wakee)
	}
	in := sws[j]
	p := Parts{CPU: in.cpu, IdleState: -1}
	p.Ns[0] = waking.t - w.T0
	st, known := tr.cpuState(in.cpu, waking.t)
	switch {
	case known && st.kind == cpuEnter:
		exit, ok := tr.firstIdleExit(in.cpu, waking.t, in.t)
		if !ok {
			return flag(Missing, "cpu %d idle at the wake but no cpu_idle exit before the switch to tid %d", in.cpu, w.Wakee)
		}
		p.Outcome, p.IdleState = Idle, st.state
		p.Ns[1] = exit - waking.t
		p.Ns[2] = in.t - exit
	case known && (st.kind == cpuExit || st.kind == toIdle):
		// The idle task ran, in no idle state: nothing to exit.
		p.Outcome = Idle
		p.Ns[2] = in.t - waking.t
	case known && st.kind == toTask, !known && in.prev != 0 && !tr.cpuEventsIn(in.cpu, waking.t, in.t):
		// Another task held the CPU from before the wake to the
		// switch (nothing idle in between): the run-queue wait.
		p.Outcome = Busy
		p.Ns[2] = in.t - waking.t
	default:
		return flag(Missing, "cpu %d's state at the wake is not in the trace", in.cpu)
	}
	// After the switch-in: time switched out again before t1 is residual.
	var off int64
	out := int64(-1)
	for k := j + 1; k < len(sws) && sws[k].t <= w.T1; k++ {
		switch {
		case !sws[k].in && out < 0:
			out = sws[k].t
		case sws[k].in && out >= 0:
			off += sws[k].t - out
			out = -1
		}
	}
	if out >= 0 {
		return flag(Missing, "tid %d switched out at %d and not back in before t1", w.Wakee, out)
	}
	p.Ns[3] = w.T1 - in.t - off
	p.Ns[4] = off
	return p
}

// wokenIn reports whether tid has a sched_waking in (a, b].
func (tr *Trace) wokenIn(tid int32, a, b int64) bool {
	wks := tr.wk[tid]
	i := sort.Search(len(wks), func(i int) bool { return wks[i].t > a })
	return i < len(wks) && wks[i].t <= b
}
