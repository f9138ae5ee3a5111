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
		per[i] = schedacct.Metrics(c, w, trips)
		total.Add(c)
		wakes.Add(w)
	}
	if parts > 1 {
		for i, m := range per {
			maps.Copy(cr.perRound[i], m)
		}
	}
	cr.sched = schedacct.Metrics(total, wakes, n)
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
