package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/spf13/cobra"
)

func init() { register(newTimeoutCmd) }

func newTimeoutCmd() *cobra.Command {
	var (
		of        outputFlags
		impl      string
		deadlines string
		slacks    string
		samples   int
		quick     bool
		lotParker string
	)
	def := timeout.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "timeout",
		Short: "How late each park-until returns after its deadline, with and without timer slack",
		Long: `timeout measures how late every timed wait parkbench knows (each parker's
timed park, the lot's Park with a deadline, Condvar.WaitUntil,
Mutex.TryLockUntil, nanosleep as the floor) returns after its deadline when
nobody wakes it: min, median, p99 and max overshoot per deadline, under each
--timerslack (Linux prctl; "default" leaves it). An early return is a bug
and is counted. Configuration keys are impl/deadline=D/slack=S.
Implementations: parkbench list. Method: docs/experiments.md.`,
		Example: `  parkbench timeout --quick
  parkbench timeout --impl futex,pthread,pthread-wallclock,pthread-relative --deadlines 10us,1ms
  parkbench timeout --impl std --timerslack default,1ns,200us --samples 1000 -o timeout.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := def
			if quick {
				o = timeout.QuickOptions()
			}
			if cmd.Flags().Changed("samples") || !quick {
				o.Samples = samples
			}
			o.Impls = splitList(impl)
			if len(o.Impls) == 0 {
				return usagef("--impl is empty; give names, a comma list, or all")
			}
			ds, err := parseDeadlines(deadlines)
			if err != nil {
				return err
			}
			o.Deadlines = ds
			sl, err := parseSlacks(slacks)
			if err != nil {
				return err
			}
			o.Slacks = sl
			o.LotParker = lotParker
			return measure(cmd, &of, o, timeout.Run)
		},
	}
	cmd.Flags().StringVar(&impl, "impl", "all", "mechanisms to measure: `NAME`, a comma list, lot (the three lot-* ones), or all ("+strings.Join(timeout.ImplNames(), ", ")+")")
	cmd.Flags().StringVar(&deadlines, "deadlines", "10us,100us,1ms,10ms", "comma list of timeouts, each > 0 and <= 10s")
	slackDef := "default"
	if timeout.SlackSupported() {
		slackDef += ",1ns"
	}
	cmd.Flags().StringVar(&slacks, "timerslack", slackDef, `comma list of per-thread timer slacks: "default" (leave it) or a duration <= 1s`)
	cmd.Flags().IntVar(&samples, "samples", def.Samples, fmt.Sprintf("measured waits per configuration, 1..%d (--quick: %d)", timeout.MaxSamples, timeout.QuickOptions().Samples))
	cmd.Flags().BoolVar(&quick, "quick", false, "fewer samples per deadline (50)")
	cmd.Flags().StringVar(&lotParker, "lot-parker", "", "parker backend under the lot-* mechanisms (default: the platform default)")
	addOutputFlags(cmd, &of)
	return cmd
}

func parseDeadlines(s string) ([]time.Duration, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--deadlines is empty")
	}
	var out []time.Duration
	for _, it := range items {
		d, err := time.ParseDuration(it)
		if err != nil {
			return nil, usagef("invalid --deadlines item %q: want a duration such as 10us or 1ms", it)
		}
		out = append(out, d)
	}
	return out, nil
}

func parseSlacks(s string) ([]time.Duration, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--timerslack is empty")
	}
	var out []time.Duration
	for _, it := range items {
		d, err := timeout.ParseSlack(it)
		if err != nil {
			return nil, usagef("--timerslack: %v", err)
		}
		out = append(out, d)
	}
	return out, nil
}
