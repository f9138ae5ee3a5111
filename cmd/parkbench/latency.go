package main

import (
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/e12"
	"github.com/spf13/cobra"
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
	d := e12.DefaultLatencyOptions()
	cmd := &cobra.Command{
		Use:   "latency",
		Short: "E12: ping-pong wake latency between two threads, per implementation and placement",
		Long: `E12, wake latency. Two threads ping-pong: the waker stamps the monotonic
time and wakes the other side, which records now - stamp and wakes back.
Per configuration (implementation x placement x gap): min, median, p99,
p99.9, max from HDR histograms, the median over rounds; waits that did not
sleep; context switches per round trip. --gap wakes an idle CPU;
--interleave runs the rounds round-robin for fair ratios on a noisy host.
--sched-counts (on; off under --quick) adds one traced round per
configuration: the Go scheduler's P steals, lost Ps, preemptions and
Goscheds per round trip; every round also counts sysmon's context
switches. --gomaxprocs=N sets GOMAXPROCS exactly (default: participants
+ 2). See docs/scheduler.md.
--quick: 200 warm-up, 2000 measured round trips, 3 rounds, cross-core only,
no traced round.
Implementations: parkbench list. Method: docs/experiments.md.`,
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
				o = e12.QuickLatencyOptions()
			}
			fl := cmd.Flags()
			if fl.Changed("impl") {
				o.Impls = splitList(impls)
				if len(o.Impls) == 0 {
					return usagef("--impl is empty; valid names: %s, or all", strings.Join(e12.ImplNames(), ", "))
				}
			}
			if fl.Changed("placement") {
				o.Placements = splitList(places)
				if len(o.Placements) == 0 {
					return usagef("--placement is empty; valid: %s, or all", strings.Join(driver.Placements, ", "))
				}
			}
			if fl.Changed("warmup") {
				o.Warmup, o.GapWarmup = warmup, warmup
			}
			if fl.Changed("iterations") {
				o.Iterations, o.GapIterations = iters, iters
			}
			if fl.Changed("rounds") {
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
				o.GOMAXPROCS = procs
			}
			if fl.Changed("sched-counts") {
				o.SchedCounts = schedCnt
			}
			return measure(cmd, &of, o, e12.RunLatency)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&impls, "impl", "all", "implementations: `NAME`, a comma list, or all ("+strings.Join(e12.ImplNames(), ", ")+")")
	fl.StringVar(&places, "placement", "all", "placements: unpinned, cross-core, same-core, a comma list, or all")
	fl.IntVar(&warmup, "warmup", d.Warmup, "warm-up round trips per configuration, not recorded")
	fl.IntVar(&iters, "iterations", d.Iterations, "measured round trips per round")
	fl.IntVar(&rounds, "rounds", d.Rounds, "rounds per configuration")
	fl.StringVar(&gaps, "gap", "0", "idle gap before each wake, `D[,D...]` (e.g. 0,50us,200us,1ms); one configuration per value")
	fl.StringVar(&lotParker, "lot-parker", "", "parker backend under impl lot (default: the platform default)")
	fl.BoolVar(&interl, "interleave", false, "run the rounds round-robin across configurations (all started first): fair ratios on a noisy or virtualised host")
	fl.IntVar(&procs, "gomaxprocs", 0, "GOMAXPROCS for the run: 0 = participants + 2 (at least the CPUs), or 2 (the participants) and up")
	fl.BoolVar(&schedCnt, "sched-counts", d.SchedCounts, "one extra traced round per configuration: the Go scheduler's P steals, lost Ps, preemptions and Goscheds per round trip (off under --quick)")
	fl.BoolVar(&quick, "quick", false, "short run: 200 warm-up, 2000 iterations, 3 rounds, cross-core only, no traced round (--sched-counts turns it on)")
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
		out = append(out, d)
	}
	return out, nil
}
