package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/timeout"
)

func init() { register(newTimeoutCmd) }

func newTimeoutCmd() *cobra.Command {
	type O = timeout.Options
	return experimentCmd[O]{
		use:   "timeout",
		short: "How late each park-until returns after its deadline, with and without timer slack",
		long: `timeout measures how late every timed wait parkbench knows (each parker's
timed park, the lot's Park with a deadline, Condvar.WaitUntil,
Mutex.TryLockUntil, nanosleep as the floor) returns after its deadline when
nobody wakes it: min, median, p99 and max overshoot per deadline, under each
--timerslack (Linux prctl; "default" leaves it). An early return is a bug
and is counted. Configuration keys are impl/deadline=D/slack=S.
Implementations: parkbench list. Method: docs/experiments.md.`,
		example: `  parkbench timeout --quick
  parkbench timeout --impl futex,pthread,pthread-wallclock,pthread-relative --deadlines 10us,1ms
  parkbench timeout --impl std --timerslack default,1ns,200us --samples 1000 -o timeout.json`,
		def:   timeout.DefaultOptions,
		quick: timeout.QuickOptions,
		plan:  timeout.Plan,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "mechanisms to measure: `NAME`, a comma list, lot (the three lot-* ones), or all ("+strings.Join(timeout.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			durationsFlag("deadlines", "Deadlines", fmt.Sprintf("comma list of timeouts, each > 0 and <= %v", timeout.MaxDeadline), func(o *O) *[]time.Duration { return &o.Deadlines }),
			list("timerslack", "Slacks", fmt.Sprintf(`comma list of per-thread timer slacks: "default" (leave it) or a duration <= %v`, timeout.MaxTimerSlack),
				func(o *O) *[]time.Duration { return &o.Slacks }, timeout.SlackLabel, parseSlack, ""),
			intFlag("samples", "Samples", fmt.Sprintf("measured waits per configuration, 1..%d", timeout.MaxSamples), func(o *O) *int { return &o.Samples }),
			stringFlag("lot-parker", "LotParker", "parker backend under the lot-* mechanisms (default: the platform default)", func(o *O) *string { return &o.LotParker }),
		},
	}.command()
}

// parseSlack reads one --timerslack item: "default" (0) or a duration; its
// range is the experiment's to check.
func parseSlack(s string) (time.Duration, error) {
	if s == "default" {
		return 0, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d != 0 {
		return d, nil
	}
	return 0, errors.New(`want "default" or a duration such as 1ns or 50us`)
}
