package main

import (
	"context"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/results"
)

func init() { register(newLatencyCmd) }

func newLatencyCmd() *cobra.Command {
	var (
		of        outputFlags
		impls     string
		places    string
		gaps      string
		lotParker string
		quick     bool
		interl    bool
		warmup    int
		iters     int
		rounds    int
		procs     int
		schedCnt  bool
	)
	d := experiments.DefaultLatencyOptions()
	cmd := &cobra.Command{
		Use:   "latency",
		Short: "E12: ping-pong wake latency between two threads, per implementation and placement",
		Long: `E12, wake latency. Two threads ping-pong: the waker writes the monotonic time
into the other side's slot, sets its flag and wakes it, then waits itself; the
woken side records now - stamp (one-way latency) and wakes back. Both
directions are pooled into an HDR histogram per round (min, median, p99,
p99.9, max); the summary is the median of the rounds. Also counted: waits that
returned without sleeping, and context switches per round trip (process-wide
and for the two threads only).

Implementations: every parker backend, lot (parking_lot_core Park/UnparkOne on
the flag's address; --lot-parker picks the parker under it) and the C
reference c-futex and c-spin (C threads, no Go runtime), measured side by side.

--gap=D[,D...] makes the waker nanosleep D before every wake, so the woken
CPU is idle when the wake arrives (wake from idle, as cyclictest's timer
wakeups); each value is a configuration, so a list gives the curve. Gap
configurations use fewer round trips by default (100 warm-up, 2000
measured; --iterations/--warmup, when given, apply to them too).

--interleave runs round 1 of every configuration, then round 2, ... (all
participants started first), so that host drift (vCPUs moving between
physical cores, foreign load coming and going) hits every implementation
alike: use it, with more rounds, when the ratios between implementations are
what you want (scripts/e12-targets.sh does).

--sched-counts (on by default) runs one more round per configuration under the
runtime trace and records what the Go scheduler did per round trip: P steals
(sysmon retaking the P of a thread blocked in a syscall), syscalls that came
back without their P, preemptions, Goscheds; every round also records sysmon's
own context switches (docs/scheduler.md). --gomaxprocs=N sets GOMAXPROCS
exactly (default: participants + 2).

--quick: 200 warm-up, 2000 measured round trips, 3 rounds, cross-core only.`,
		Example: `  parkbench latency --quick
  parkbench latency --impl=futex,c-futex,spin,c-spin --placement=cross-core
  parkbench latency --impl=futex --gap=0,50us,200us,1ms --placement=cross-core
  parkbench latency --impl=lot --lot-parker=pthread --format=json --out lot.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := d
			if quick {
				o = experiments.QuickLatencyOptions()
			}
			fl := cmd.Flags()
			if fl.Changed("impl") {
				o.Impls = splitList(impls)
				if len(o.Impls) == 0 {
					return usagef("--impl is empty; valid names: %s, or all", strings.Join(experiments.ImplNames(), ", "))
				}
			}
			if fl.Changed("placement") {
				o.Placements = splitList(places)
				if len(o.Placements) == 0 {
					return usagef("--placement is empty; valid: %s, or all", strings.Join(experiments.Placements, ", "))
				}
			}
			if fl.Changed("warmup") {
				if err := checkCount("warmup", warmup, 0, experiments.MaxWarmup); err != nil {
					return err
				}
				o.Warmup, o.GapWarmup = warmup, warmup
			}
			if fl.Changed("iterations") {
				if err := checkCount("iterations", iters, 1, experiments.MaxIterations); err != nil {
					return err
				}
				o.Iterations, o.GapIterations = iters, iters
			}
			if fl.Changed("rounds") {
				if err := checkCount("rounds", rounds, 1, experiments.MaxRounds); err != nil {
					return err
				}
				o.Rounds = rounds
			}
			if fl.Changed("gap") {
				g, err := parseGaps(gaps)
				if err != nil {
					return err
				}
				o.Gaps = g
			}
			o.LotParker = lotParker
			if fl.Changed("interleave") {
				o.Interleave = interl
			}
			if fl.Changed("gomaxprocs") {
				if procs != 0 {
					if err := checkCount("gomaxprocs", procs, 2, experiments.MaxGOMAXPROCS); err != nil {
						return err
					}
				}
				o.GOMAXPROCS = procs
			}
			if fl.Changed("sched-counts") {
				o.SchedCounts = schedCnt
			}
			return measure(cmd, &of, func(ctx context.Context, p experiments.Progress) (*results.Experiment, error) {
				return experiments.RunLatency(ctx, o, p)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&impls, "impl", "all", "implementations: `NAME`, a comma list, or all ("+strings.Join(experiments.ImplNames(), ", ")+")")
	fl.StringVar(&places, "placement", "all", "placements: unpinned, cross-core, same-core, a comma list, or all")
	fl.IntVar(&warmup, "warmup", d.Warmup, "warm-up round trips per configuration, not recorded")
	fl.IntVar(&iters, "iterations", d.Iterations, "measured round trips per round")
	fl.IntVar(&rounds, "rounds", d.Rounds, "rounds per configuration")
	fl.StringVar(&gaps, "gap", "0", "idle gap before each wake, `D[,D...]` (e.g. 0,50us,200us,1ms); one configuration per value")
	fl.StringVar(&lotParker, "lot-parker", "", "parker backend under impl lot (default: the platform default)")
	fl.BoolVar(&interl, "interleave", false, "run the rounds round-robin across configurations (all started first): fair ratios on a noisy or virtualised host")
	fl.IntVar(&procs, "gomaxprocs", 0, "GOMAXPROCS for the run: 0 = participants + 2 (at least the CPUs), or 2 (the participants) and up")
	fl.BoolVar(&schedCnt, "sched-counts", d.SchedCounts, "one extra traced round per configuration: the Go scheduler's P steals, lost Ps, preemptions and Goscheds per round trip")
	fl.BoolVar(&quick, "quick", false, "short run: 200 warm-up, 2000 iterations, 3 rounds, cross-core only")
	addOutputFlags(cmd, &of)
	return cmd
}

// parseGaps parses a comma list of durations; a bare 0 is allowed.
func parseGaps(s string) ([]time.Duration, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--gap is empty; give durations such as 0,50us,1ms")
	}
	var out []time.Duration
	for _, it := range items {
		var d time.Duration
		if it != "0" {
			var err error
			if d, err = time.ParseDuration(it); err != nil {
				return nil, usagef("invalid --gap %q: %v", it, err)
			}
		}
		if d < 0 {
			return nil, usagef("invalid --gap %s: must not be negative", it)
		}
		if d > experiments.MaxGap {
			return nil, usagef("invalid --gap %s: at most %v", it, experiments.MaxGap)
		}
		out = append(out, d)
	}
	return out, nil
}
