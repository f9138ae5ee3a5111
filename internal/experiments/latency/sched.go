package latency

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/parkbench/parkbench/internal/schedacct"
)

// What the Go scheduler does during E12's rounds (docs/scheduler.md).
//
// Every round reads sysmon's context switches around it (one /proc file,
// read by the controller between rounds), beside ctxsw_other_per_rt. After
// a configuration's measured rounds, one more round of the same length runs
// under the runtime trace (schedacct.Trace) and counts, per round trip, the
// P steals (sysmon's retake of a P whose goroutine sits in FUTEX_WAIT), the
// syscalls that came back without their P, the preemptions and the
// Goscheds. That round is not part of any latency figure: the trace costs
// time on every syscall.
//
// The traced round runs in as many parts as the configuration has measured
// rounds, each traced on its own and a share of the round trips: part i's
// counts go into round i's metrics (as --anatomy's traced twin of a round
// does), the summary's are the whole traced round's. E12-sched-steals is
// decided on the parts, so its spread shows in the default run (three
// rounds) at no more round trips: one traced round of the quiet AMD EPYC
// f25m17 guest's cross-core futex-plain is ~0.3 s, and a second full one
// for futex and futex-plain at three placements would add ~2 s to the
// 2:20-2:35 default run.
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

// sysmonSwitches reads sysmon's switches (-1: unknown or unreadable).
func sysmonSwitches(sysmon int) int64 {
	if sysmon <= 0 {
		return -1
	}
	n, err := schedacct.ThreadSwitches(sysmon)
	if err != nil {
		return -1
	}
	return n
}

// countSched runs the configuration's traced round, in parts (one per
// measured round, each of about n/parts round trips), puts each part's
// counts into its round's metrics and the whole round's into sched. A
// trace already running elsewhere in the process is a warning, not an
// error.
func (cr *configRun) countSched(ctx context.Context) error {
	n := cr.c.n
	parts := max(1, min(len(cr.perRound), n))
	var total schedacct.Counts
	var wakes schedacct.Wakes
	per := make([]map[string]float64, parts)
	for i := range parts {
		trips := n / parts
		if i == parts-1 {
			trips = n - (parts-1)*(n/parts)
		}
		c, w, err := cr.tracedPart(ctx, trips)
		if errors.Is(err, schedacct.ErrTracing) {
			cr.cfg.Warnings = append(cr.cfg.Warnings, "scheduler counts not taken: "+err.Error())
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s traced round: %w", cr.c.key(), err)
		}
		per[i] = schedMetrics(c, w, trips)
		total.Steals += c.Steals
		total.LostP += c.LostP
		total.Preempts += c.Preempts
		total.Yields += c.Yields
		wakes.Total += w.Total
		wakes.SameP += w.SameP
		wakes.OtherP += w.OtherP
		wakes.ThreadWoken += w.ThreadWoken
		wakes.NeverRan += w.NeverRan
	}
	if parts > 1 {
		for i, m := range per {
			maps.Copy(cr.perRound[i], m)
		}
	}
	cr.sched = schedMetrics(total, wakes, n)
	return nil
}

// tracedPart runs trips round trips under the runtime trace.
func (cr *configRun) tracedPart(ctx context.Context, trips int) (c schedacct.Counts, w schedacct.Wakes, err error) {
	err = cr.withBackend(func() error {
		var err error
		c, w, err = schedacct.TraceWakes(func() error {
			_, err := cr.runner.round(ctx, trips)
			return err
		})
		return err
	})
	return c, w, err
}

// schedMetrics is a traced window's counts per round trip, n round trips.
func schedMetrics(c schedacct.Counts, w schedacct.Wakes, n int) map[string]float64 {
	m := map[string]float64{
		MSchedSteals:   float64(c.Steals) / float64(n),
		MSchedLostP:    float64(c.LostP) / float64(n),
		MSchedPreempts: float64(c.Preempts) / float64(n),
		MSchedGosched:  float64(c.Yields) / float64(n),
	}
	maps.Copy(m, wakeShares(w, n))
	return m
}
