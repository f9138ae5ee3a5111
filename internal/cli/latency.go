package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/latency"
)

// The commands of internal/experiments/latency: latency (E12) and selfwake, its
// reverse check.
func init() {
	register(newLatencyCmd)
	register(newSelfwakeCmd)
}

func newLatencyCmd() *cobra.Command {
	type O = latency.LatencyOptions
	return experimentCmd[O]{
		use:   "latency",
		short: "E12: ping-pong wake latency between two threads, per implementation and placement",
		long: `E12, wake latency. Two threads ping-pong: the waker stamps the monotonic
time and wakes the other side, which records now - stamp and wakes back.
Per configuration (implementation x placement x gap): min, median, p99,
p99.9, max from HDR histograms, the median over rounds; waits that did not
sleep; context switches per round trip. --gap wakes an idle CPU;
--interleave runs the rounds round-robin for fair ratios on a noisy host.
--sched-counts (on; off under --quick) adds one traced round per
configuration: the Go scheduler's P steals, lost Ps, preemptions and
Goscheds per round trip; every round also counts sysmon's context
switches. --gomaxprocs=N[,N...] sets GOMAXPROCS exactly, one configuration
per value (default: participants + 2). See docs/scheduler.md.
--participants=goroutines runs the sides as plain goroutines (unlocked,
unpinned; chan, cond, lot, mutex-sema, rwmutex-sema, waitgroup) and adds
the runtime's own figures: how each wake was run (waker's P, another P,
a thread woken). See docs/experiments.md, "goroutines".
--quick: fewer round trips, cross-core only, no traced round (each flag's
help gives its --quick value; a flag given explicitly beats --quick).
Implementations: parkbench list. Method: docs/experiments.md.`,
		example: `  parkbench latency --quick
  parkbench latency --impl=futex,c-futex,spin,c-spin --placement=cross-core
  parkbench latency --impl=futex --gap=0,50us,200us,1ms --placement=cross-core
  parkbench latency --impl=chan,cond,lot --participants=threads,goroutines --gomaxprocs=1,2
  parkbench latency --impl=lot --lot-parker=pthread --format=json --out lot.json`,
		def:   latency.DefaultLatencyOptions,
		quick: latency.QuickLatencyOptions,
		plan:  latency.PlanLatency,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "implementations: `NAME`, a comma list, or all ("+strings.Join(latency.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			namesFlag("placement", "Placements", "placements: unpinned, cross-core, same-core, a comma list, or all", func(o *O) *[]string { return &o.Placements }),
			intFlag("warmup", "Warmup", "warm-up round trips per configuration, not recorded", func(o *O) *int { return &o.Warmup }).
				also("GapWarmup", func(o *O) { o.GapWarmup = o.Warmup }),
			intFlag("iterations", "Iterations", "measured round trips per round", func(o *O) *int { return &o.Iterations }).
				also("GapIterations", func(o *O) { o.GapIterations = o.Iterations }),
			intFlag("rounds", "Rounds", "rounds per configuration", func(o *O) *int { return &o.Rounds }),
			durationsFlag("gap", "Gaps", "idle gap before each wake, `D[,D...]` (e.g. 0,50us,200us,1ms); one configuration per value", func(o *O) *[]time.Duration { return &o.Gaps }),
			stringFlag("lot-parker", "LotParker", "parker backend under impl lot (default: the platform default)", func(o *O) *string { return &o.LotParker }),
			boolFlag("interleave", "Interleave", "run the rounds round-robin across configurations (all started first): fair ratios on a noisy or virtualised host", func(o *O) *bool { return &o.Interleave }),
			intsFlag("gomaxprocs", "GOMAXPROCS", "GOMAXPROCS, `N[,N...]` (1 to 256): one configuration per value, put back after it (default: participants + 2, at least the CPUs)", func(o *O) *[]int { return &o.GOMAXPROCS }),
			namesFlag("participants", "Participants", "what runs the two sides: threads (goroutines locked to their threads), goroutines (plain, unpinned), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
			boolFlag("anatomy", "Anatomy", "pair every round with one traced through the kernel's tracepoints and split each wake into call, idle_exit, schedule, return, residual (Linux, root; docs/anatomy.md)", func(o *O) *bool { return &o.Anatomy }),
			boolFlag("sched-counts", "SchedCounts", "one extra traced round per configuration: the Go scheduler's P steals, lost Ps, preemptions and Goscheds per round trip", func(o *O) *bool { return &o.SchedCounts }),
		},
	}.command()
}

func newSelfwakeCmd() *cobra.Command {
	type O = latency.SelfwakeOptions
	return experimentCmd[O]{
		use:   "selfwake",
		short: "E12 reverse check: a thread wakes itself, then waits; the wait must return at once",
		long: `E12's reverse check. One thread wakes itself and then waits, so the wait
returns at once; ns per pair is the median of the samples. If latency's
microseconds came from API overhead rather than from sleeping, they would
show here; the study found ~10 ns. The syscall row is one getppid per pair,
for context. Implementations: parkbench list. Method: docs/experiments.md.`,
		example: `  parkbench selfwake
  parkbench selfwake --impl=futex,lot,std,crossbeam,c-futex --format=json`,
		def:   latency.DefaultSelfwakeOptions,
		quick: latency.QuickSelfwakeOptions,
		plan:  latency.PlanSelfwake,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "implementations: `NAME`, a comma list, or all ("+strings.Join(latency.SelfwakeImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			intFlag("pairs", "Pairs", "wake-then-wait pairs per timed sample", func(o *O) *int { return &o.Pairs }),
			intFlag("samples", "Samples", "samples per round", func(o *O) *int { return &o.Samples }),
			intFlag("rounds", "Rounds", "rounds", func(o *O) *int { return &o.Rounds }),
			namesFlag("participants", "Participants", "who wakes itself: threads (a goroutine locked to its thread, pinned), goroutines (a plain one), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
			stringFlag("lot-parker", "LotParker", "parker backend under impl lot (default: the platform default)", func(o *O) *string { return &o.LotParker }),
		},
	}.command()
}
