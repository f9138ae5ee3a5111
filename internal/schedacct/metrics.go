package schedacct

import (
	"maps"
)

// The scheduler's figures per round trip of a two-sided experiment (E12's
// latency: docs/scheduler.md), from a traced window (Counts, Wakes), the
// runtime's own metrics (RuntimeWindow) and sysmon's switches.
const (
	// MCtxSwSysmon: sysmon's context switches per round trip (part of
	// ctxsw_other_per_rt). Absent when sysmon could not be identified.
	MCtxSwSysmon = "ctxsw_sysmon_per_rt"
	// MSchedSteals: P steals per round trip, from the traced round.
	MSchedSteals = "sched_steals_per_rt"
	// MSchedLostP: syscalls per round trip that returned without their P.
	MSchedLostP = "sched_lostp_per_rt"
	// MSchedPreempts: goroutine preemptions per round trip.
	MSchedPreempts = "sched_preempts_per_rt"
	// MSchedGosched: runtime.Gosched calls per round trip (the futex
	// keep-alive).
	MSchedGosched = "sched_gosched_per_rt"
)

// The goroutine-level figures (every row of goroutine participants has the
// runtime/metrics ones; the wake shares come from the traced round).
const (
	// MGoSchedLatMedian and MGoSchedLatP99: how long goroutines that
	// became runnable in the round waited to run (runtime/metrics
	// /sched/latencies:seconds, the round's new samples; bucket upper
	// bounds), ns. Every goroutine counts, the controller's too.
	MGoSchedLatMedian = "go_sched_latency_median_ns"
	MGoSchedLatP99    = "go_sched_latency_p99_ns"
	// MGoScheduledPerRT: goroutines scheduled per round trip (the
	// histogram's new samples / round trips): 2 when each side is
	// readied once per trip and nothing else runs.
	MGoScheduledPerRT = "go_scheduled_per_rt"
	// MGoGoroutines and MGoThreads: /sched/goroutines:goroutines and
	// /sched/threads/total:threads at the round's end.
	MGoGoroutines = "go_goroutines"
	MGoThreads    = "go_threads"
	// MWakeSameP, MWakeOtherP and MWakeThreadWoken: of the traced
	// round's wakes of one participant by the other (Wakes),
	// the share that ran on the waker's P (runnext), that ran on another
	// already running P, and that ran on a P whose thread was woken (or
	// started) for it. MWakesPerRT: those wakes per round trip.
	MWakeSameP       = "wake_same_p_share"
	MWakeOtherP      = "wake_other_p_share"
	MWakeThreadWoken = "wake_thread_woken_share"
	MWakesPerRT      = "sched_wakes_per_rt"
)

// RuntimeMetrics adds the round's runtime/metrics window to m.
func RuntimeMetrics(w RuntimeWindow, n int, m map[string]float64) {
	if !w.OK {
		return
	}
	if w.Scheduled > 0 {
		m[MGoSchedLatMedian] = w.LatencyMedianNs
		m[MGoSchedLatP99] = w.LatencyP99Ns
	}
	m[MGoScheduledPerRT] = float64(w.Scheduled) / float64(n)
	m[MGoGoroutines] = float64(w.Goroutines)
	m[MGoThreads] = float64(w.Threads)
}

// WakeShares are a traced round's wake figures (none when no wake between
// participants went through the scheduler: a thread parker's wake is a
// futex wake of the M, which the trace does not see as an unblock).
func WakeShares(w Wakes, n int) map[string]float64 {
	if w.Total == 0 {
		return nil
	}
	return map[string]float64{
		MWakeSameP:       w.Share(w.SameP),
		MWakeOtherP:      w.Share(w.OtherP),
		MWakeThreadWoken: w.Share(w.ThreadWoken),
		MWakesPerRT:      float64(w.Total) / float64(n),
	}
}

// SysmonSwitches reads sysmon's switches (-1: unknown or unreadable).
func SysmonSwitches(sysmon int) int64 {
	if sysmon <= 0 {
		return -1
	}
	n, err := ThreadSwitches(sysmon)
	if err != nil {
		return -1
	}
	return n
}

// Metrics is a traced window's counts per round trip, n round trips.
func Metrics(c Counts, w Wakes, n int) map[string]float64 {
	m := map[string]float64{
		MSchedSteals:   float64(c.Steals) / float64(n),
		MSchedLostP:    float64(c.LostP) / float64(n),
		MSchedPreempts: float64(c.Preempts) / float64(n),
		MSchedGosched:  float64(c.Yields) / float64(n),
	}
	maps.Copy(m, WakeShares(w, n))
	return m
}

// Add adds o's counts to c's.
func (c *Counts) Add(o Counts) {
	c.Steals += o.Steals
	c.LostP += o.LostP
	c.Preempts += o.Preempts
	c.Yields += o.Yields
}

// Add adds o's wakes to w's.
func (w *Wakes) Add(o Wakes) {
	w.Total += o.Total
	w.SameP += o.SameP
	w.OtherP += o.OtherP
	w.ThreadWoken += o.ThreadWoken
	w.NeverRan += o.NeverRan
}
