package latency

import (
	"context"
	"errors"
	"fmt"

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

// countSched runs the configuration's traced round and adds its counts to
// the summary. A trace already running elsewhere in the process is a
// warning, not an error.
func (cr *configRun) countSched(ctx context.Context) error {
	n := cr.c.n
	var c schedacct.Counts
	var w schedacct.Wakes
	err := cr.withBackend(func() error {
		var err error
		c, w, err = schedacct.TraceWakes(func() error {
			_, err := cr.runner.round(ctx, n)
			return err
		})
		return err
	})
	if errors.Is(err, schedacct.ErrTracing) {
		cr.cfg.Warnings = append(cr.cfg.Warnings, "scheduler counts not taken: "+err.Error())
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s traced round: %w", cr.c.key(), err)
	}
	cr.sched = map[string]float64{
		MSchedSteals:   float64(c.Steals) / float64(n),
		MSchedLostP:    float64(c.LostP) / float64(n),
		MSchedPreempts: float64(c.Preempts) / float64(n),
		MSchedGosched:  float64(c.Yields) / float64(n),
	}
	for k, v := range wakeShares(w, n) {
		cr.sched[k] = v
	}
	return nil
}
