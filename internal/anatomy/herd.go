package anatomy

import (
	"fmt"
	"sort"

	"github.com/parkbench/parkbench/internal/results"
)

// The herd's trace (parkbench herd --anatomy): after one notify, which
// waiters were switched in and then went back to sleep before they held the
// mutex. A broadcast (FUTEX_WAKE of every waiter) wakes all of them at once;
// every one but the first finds the mutex taken and sleeps on it again. A
// requeue (parking_lot's RequeueAll / UnparkOneRequeueRest,
// FUTEX_CMP_REQUEUE) moves them onto the mutex's queue instead: each is
// woken once, by the unlock before its turn, and acquires. The count is read
// from sched_switch only: a waiter's switch-out whose prev_state is a sleep
// (S, D: taskSleeping) after its first switch-in at or after the notify and
// before the clock read it takes right after acquiring.

// HerdWaiter is one waiter of a repeat: its thread and the clock it read
// right after it held the mutex (CLOCK_MONOTONIC ns, the trace's clock).
type HerdWaiter struct {
	TID int32
	Acq int64
}

// HerdWake is what the trace says of one waiter.
type HerdWake struct {
	// Traced: the waiter's wake was found (a switch-in in [t0, acq]).
	Traced bool
	// Resleeps is the number of sleeping switch-outs between that
	// switch-in and acq; SleptAgain is Resleeps > 0.
	Resleeps   int
	SleptAgain bool
	// Runnable is the number of switch-outs still runnable (state R)
	// in the same window: a sched_yield or a preemption, which the trace
	// of sched_switch alone does not tell apart. parking_lot's mutex
	// yields (SpinWait) before it parks: its herd shows here.
	Runnable int
	// Why names why a waiter was not traced (Traced false).
	Why string
}

// HerdCount is one notify's count.
type HerdCount struct {
	Waiters []HerdWake
	// SleptAgain: waiters woken that slept again before acquiring;
	// Resleeps: their sleeping switch-outs in all; Traced / Flagged:
	// waiters whose wake the trace did / did not show.
	SleptAgain, Resleeps, Traced, Flagged int
	// Runnable: the traced waiters' runnable switch-outs in all.
	Runnable int
	// Why is the first flagged waiter's reason.
	Why string
}

// Herd counts, per waiter, the sleeps between its wake and its hold: t0 is
// the notifier's clock right before the notify. A waiter whose window lost
// records, or with no switch-in in [t0, acq], is flagged, never counted as
// "did not sleep again". Index the trace with the waiters' TIDs.
func (tr *Trace) Herd(t0 int64, waiters []HerdWaiter) HerdCount {
	var c HerdCount
	for _, w := range waiters {
		hw := tr.herdOne(t0, w)
		c.Waiters = append(c.Waiters, hw)
		if !hw.Traced {
			c.Flagged++
			if c.Why == "" {
				c.Why = hw.Why
			}
			continue
		}
		c.Traced++
		c.Resleeps += hw.Resleeps
		c.Runnable += hw.Runnable
		if hw.SleptAgain {
			c.SleptAgain++
		}
	}
	return c
}

func (tr *Trace) herdOne(t0 int64, w HerdWaiter) HerdWake {
	if w.Acq < t0 {
		return HerdWake{Why: fmt.Sprintf("tid %d acquired at %d, before the notify at %d", w.TID, w.Acq, t0)}
	}
	if tr.lostIn(t0, w.Acq) {
		return HerdWake{Why: fmt.Sprintf("records were lost between the notify and tid %d's hold", w.TID)}
	}
	sws := tr.sw[w.TID]
	i := sort.Search(len(sws), func(i int) bool { return sws[i].t >= t0 })
	// Asleep at the notify: the harness saw every waiter asleep before
	// the trace began (herd's awaitSleeping), so a waiter has usually no
	// switch before t0 in the trace; one whose last switch before t0 is
	// not a sleep contradicts that and is not placed.
	if i > 0 {
		if last := sws[i-1]; last.in || !last.sleeping {
			return HerdWake{Why: fmt.Sprintf("tid %d was not asleep at the notify (its last switch before it is not a sleep)", w.TID)}
		}
	}
	if i < len(sws) && sws[i].t <= w.Acq && !sws[i].in {
		// A switch-out while switched out: a record is missing.
		return HerdWake{Why: fmt.Sprintf("tid %d switched out at %d while not switched in", w.TID, sws[i].t)}
	}
	if i >= len(sws) || sws[i].t > w.Acq {
		return HerdWake{Why: fmt.Sprintf("no sched_switch to tid %d between the notify and its hold", w.TID)}
	}
	hw := HerdWake{Traced: true}
	in := true
	for k := i + 1; k < len(sws) && sws[k].t <= w.Acq; k++ {
		if sws[k].in == in {
			return HerdWake{Why: fmt.Sprintf("tid %d has two switches %s in a row at %d", w.TID, map[bool]string{true: "in", false: "out"}[in], sws[k].t)}
		}
		in = sws[k].in
		switch {
		case !in && sws[k].sleeping:
			hw.Resleeps++
		case !in:
			hw.Runnable++
		}
	}
	if !in {
		return HerdWake{Why: fmt.Sprintf("tid %d is switched out at its hold", w.TID)}
	}
	hw.SleptAgain = hw.Resleeps > 0
	return hw
}

// The herd's trace figures, per repeat (one notify); the summary is the
// median over repeats.
const (
	// MHerdSleptAgain: waiters switched in after the notify that slept
	// again before they held the mutex.
	MHerdSleptAgain = "anatomy_herd_slept_again"
	// MHerdResleeps: their sleeping switch-outs in all.
	MHerdResleeps = "anatomy_herd_resleeps"
	// MHerdRunnable: their switch-outs still runnable (yield or
	// preemption) before they held the mutex.
	MHerdRunnable = "anatomy_herd_runnable_switches"
	// MHerdTraced / MHerdFlagged: waiters whose wake the trace showed /
	// could not place (counted, never taken as "did not sleep again").
	MHerdTraced  = "anatomy_herd_traced"
	MHerdFlagged = "anatomy_herd_flagged"
)

// Metrics writes c's figures into m (lost: the rings' lost records over
// the window).
func (c HerdCount) Metrics(m map[string]float64, lost uint64) {
	m[MHerdSleptAgain] = float64(c.SleptAgain)
	m[MHerdResleeps] = float64(c.Resleeps)
	m[MHerdRunnable] = float64(c.Runnable)
	m[MHerdTraced] = float64(c.Traced)
	m[MHerdFlagged] = float64(c.Flagged)
	m[MLostRecords] = float64(lost)
}

// HerdMetricSpecs describes the herd's trace figures (herd --anatomy).
func HerdMetricSpecs() []results.MetricSpec {
	spec := func(key, header, bench string, diag bool) results.MetricSpec {
		return results.MetricSpec{Key: key, Header: header, Better: results.Lower, Diagnostic: diag, Benchstat: bench, Section: results.SectionAnatomy}
	}
	return []results.MetricSpec{
		spec(MHerdSleptAgain, "slept again", "anatomy-slept-again/op", false),
		spec(MHerdResleeps, "resleeps", "", false),
		spec(MHerdRunnable, "yield/preempt", "", true),
		spec(MHerdTraced, "traced", "", true),
		spec(MHerdFlagged, "flagged", "", true),
		spec(MLostRecords, "lost", "", true),
	}
}
