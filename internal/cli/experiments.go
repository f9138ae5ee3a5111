package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/inversion"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/spin"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/timeout"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// The measuring commands of the experiments, one constructor each: the
// experiment's options, plan and flags (experimentCmd). What each command
// says of itself (summary, long help, examples) is help/<command>.txt. A
// new experiment adds its constructor here, in registry order.
func init() {
	for _, mk := range []func() *cobra.Command{
		newLatencyCmd, newSelfwakeCmd, newHerdCmd, newTimeoutCmd, newLockCmd,
		newRwlockCmd, newWakeCmd, newLoadedCmd, newSpinCmd, newStacksCmd, newInversionCmd,
	} {
		register(mk)
	}
}

func newLatencyCmd() *cobra.Command {
	type O = latency.LatencyOptions
	return experimentCmd[O]{use: "latency", def: latency.DefaultLatencyOptions, quick: latency.QuickLatencyOptions, plan: latency.PlanLatency}.command(
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
	)
}

func newSelfwakeCmd() *cobra.Command {
	type O = selfwake.Options
	return experimentCmd[O]{use: "selfwake", def: selfwake.DefaultOptions, quick: selfwake.QuickOptions, plan: selfwake.PlanSelfwake}.command(
		namesFlag("impl", "Impls", "implementations: `NAME`, a comma list, or all ("+strings.Join(selfwake.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		intFlag("pairs", "Pairs", "wake-then-wait pairs per timed sample", func(o *O) *int { return &o.Pairs }),
		intFlag("samples", "Samples", "samples per round", func(o *O) *int { return &o.Samples }),
		intFlag("rounds", "Rounds", "rounds", func(o *O) *int { return &o.Rounds }),
		namesFlag("participants", "Participants", "who wakes itself: threads (a goroutine locked to its thread, pinned), goroutines (a plain one), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
		stringFlag("lot-parker", "LotParker", "parker backend under impl lot (default: the platform default)", func(o *O) *string { return &o.LotParker }),
	)
}

func newHerdCmd() *cobra.Command {
	type O = herd.Options
	return experimentCmd[O]{use: "herd", def: herd.DefaultOptions, quick: herd.QuickOptions, plan: herd.Plan}.command(
		namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available (names: "+strings.Join(herd.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		intsFlag("waiters", "Waiters", fmt.Sprintf("N, or a comma list of N, each 1..%d", herd.MaxWaiters), func(o *O) *[]int { return &o.Waiters }),
		namesFlag("participants", "Participants", "who waits and notifies: threads (locked threads; sync: goroutines), goroutines (every Go implementation on plain goroutines), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
		durationFlag("hold", "Hold", "how long each waiter holds the mutex, busy-waiting on the monotonic clock", func(o *O) *time.Duration { return &o.Hold }),
		namesFlag("notify", "Notify", "notify mode: notify-all (one notify_all), one-loop (N x notify_one), or both as a comma list (all: notify-all's deprecated name)", func(o *O) *[]string { return &o.Notify }),
		boolsFlag("lock-held", "LockHeld", "notify with the mutex held (true), released (false), or both (true,false)", func(o *O) *[]bool { return &o.LockHeld }),
		intFlag("repeats", "Repeats", "repeats per configuration, fresh threads each", func(o *O) *int { return &o.Repeats }),
		namesFlag("placement", "Placements", "unpinned, same-core, cross-core, a comma list, or all", func(o *O) *[]string { return &o.Placements }),
		boolFlag("anatomy", "Anatomy", "trace every repeat (sched_switch of the waiters) and count per notify the waiters that slept again before holding the mutex (Linux, root; docs/anatomy.md)", func(o *O) *bool { return &o.Anatomy }),
		stringFlag("mode", "Mode", "herd (every waiter has work: E6) or idle (an idle pool: one item per notify; notify_one, notify_all and requeue side by side)", func(o *O) *string { return &o.Mode }),
		intFlag("requests", "Requests", fmt.Sprintf("idle: requests each repeat's pool serves, 1..%d", herd.MaxRequests), func(o *O) *int { return &o.Requests }),
	)
}

func newTimeoutCmd() *cobra.Command {
	type O = timeout.Options
	return experimentCmd[O]{use: "timeout", def: timeout.DefaultOptions, quick: timeout.QuickOptions, plan: timeout.Plan}.command(
		namesFlag("impl", "Impls", "mechanisms to measure: `NAME`, a comma list, lot (the three lot-* ones), or all ("+strings.Join(timeout.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		durationsFlag("deadlines", "Deadlines", fmt.Sprintf("comma list of timeouts, each > 0 and <= %v", timeout.MaxDeadline), func(o *O) *[]time.Duration { return &o.Deadlines }),
		list("timerslack", "Slacks", fmt.Sprintf(`comma list of per-thread timer slacks: "default" (leave it) or a duration <= %v`, timeout.MaxTimerSlack),
			func(o *O) *[]time.Duration { return &o.Slacks }, timeout.SlackLabel, parseSlack, ""),
		intFlag("samples", "Samples", fmt.Sprintf("measured waits per configuration, 1..%d", timeout.MaxSamples), func(o *O) *int { return &o.Samples }),
		stringFlag("lot-parker", "LotParker", "parker backend under the lot-* mechanisms (default: the platform default)", func(o *O) *string { return &o.LotParker }),
	)
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

func newLockCmd() *cobra.Command {
	type O = lock.Options
	var implLines []string
	for _, im := range lock.Impls() {
		line := im.Summary
		if im.Why != "" {
			line += " [unavailable: " + im.Why + "]"
		}
		// Wrapped under the summary column, so help fits textfmt.Columns
		// on every OS (the reasons an implementation cannot run are long).
		implLines = append(implLines, textfmt.Wrap(line, textfmt.Columns, fmt.Sprintf("  %-10s ", im.Name), strings.Repeat(" ", 13)))
	}
	cmd := experimentCmd[O]{use: "lock", def: lock.DefaultOptions, quick: lock.QuickOptions, plan: lock.Plan}.command(
		namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available (names: "+strings.Join(lock.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		optionalNamesFlag("lot-parker", "LotParkers", "also run lot over each of these parkers (comma list), as impl lot@PARKER", func(o *O) *[]string { return &o.LotParkers }),
		intsFlag("threads", "Threads", fmt.Sprintf("thread counts, comma list, each 1..%d (default here 1,2,4,NumCPU,2xNumCPU)", lock.MaxThreads), func(o *O) *[]int { return &o.Threads }),
		durationsFlag("work-in", "WorkIn", fmt.Sprintf("work inside the lock, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkIn }),
		durationsFlag("work-between", "WorkBetween", fmt.Sprintf("work between acquisitions, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkBetween }),
		intsFlag("locks", "Locks", fmt.Sprintf("number of locks, comma list, each 1..%d: with K > 1 each acquisition picks one of K at random (lock-bench)", lock.MaxLocks), func(o *O) *[]int { return &o.Locks }),
		durationFlag("duration", "Duration", "length of one timed run", func(o *O) *time.Duration { return &o.Duration }),
		intFlag("repeats", "Repeats", "timed runs per configuration; figures are their median", func(o *O) *int { return &o.Repeats }),
		durationFlag("hold-sleep", "HoldSleep", "WebKit LockFairnessTest mode: sleep this long while holding the lock (0: off)", func(o *O) *time.Duration { return &o.HoldSleep }),
		boolFlag("lockskew", "Skew", "golang/go#13086's lockskew pattern (two threads; 100 µs sleeps)", func(o *O) *bool { return &o.Skew }),
		namesFlag("participants", "Participants", "what runs the loops: threads (goroutines locked to their threads), goroutines (plain), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
		intsFlag("gomaxprocs", "GOMAXPROCS", "GOMAXPROCS, `N[,N...]` (1 to 256): one configuration per value (default: threads + 2, at least the CPUs)", func(o *O) *[]int { return &o.GOMAXPROCS }),
	)
	cmd.Long = strings.Replace(cmd.Long, "{implementations}", strings.Join(implLines, "\n"), 1)
	// Read by rwlockAlias before cobra parses: "lock --rwlock" runs rwlock.
	cmd.Flags().Bool("rwlock", false, "run 'parkbench rwlock' (parking_lot's rwlock benchmark) instead; its flags follow")
	return cmd
}

// The rwlock benchmark, experiment "rwlock" of internal/experiments/lock.
// It was "lock --rwlock", which still works (rwlockAlias).
func newRwlockCmd() *cobra.Command {
	type O = lock.RwOptions
	return experimentCmd[O]{use: "rwlock", def: lock.DefaultRwOptions, quick: lock.QuickRwOptions, plan: lock.PlanRw}.command(
		namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available (names: "+strings.Join(lock.RwImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		intsFlag("readers", "Readers", fmt.Sprintf("reader thread counts, comma list, each 0..%d", lock.MaxThreads), func(o *O) *[]int { return &o.Readers }),
		intsFlag("writers", "Writers", fmt.Sprintf("writer thread counts, comma list, each 0..%d", lock.MaxThreads), func(o *O) *[]int { return &o.Writers }),
		durationsFlag("work-in", "WorkIn", fmt.Sprintf("work inside the lock, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkIn }),
		durationsFlag("work-between", "WorkBetween", fmt.Sprintf("work between acquisitions, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkBetween }),
		durationFlag("duration", "Duration", "length of one timed run", func(o *O) *time.Duration { return &o.Duration }),
		intFlag("repeats", "Repeats", "timed runs per configuration; figures are their median", func(o *O) *int { return &o.Repeats }),
	)
}

// rwlockAlias rewrites "lock --rwlock ..." (the command's name before it was
// its own) to "rwlock ...": the alias stays for scripts that use it.
// Only the subcommand position is looked at; "--rwlock=false" keeps lock.
func rwlockAlias(args []string) []string {
	if len(args) == 0 || args[0] != "lock" {
		return args
	}
	for i, a := range args[1:] {
		if a == "--" {
			break
		}
		if a == "--rwlock" || a == "--rwlock=true" {
			out := append([]string{"rwlock"}, args[1:i+1]...)
			return append(out, args[i+2:]...)
		}
	}
	return args
}

func newWakeCmd() *cobra.Command {
	type O = wake.Options
	return experimentCmd[O]{use: "wake", def: wake.DefaultOptions, quick: wake.QuickOptions, plan: wake.Plan, renderers: map[string]func(io.Writer, *results.File) error{wake.FormatPerf: wake.RenderPerf}}.command(
		namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available ("+strings.Join(wake.ImplNames(), ", ")+"); a bench runs those that have it", func(o *O) *[]string { return &o.Impls }),
		namesFlag("bench", "Benches", "benches: "+strings.Join(wake.Benches, ", ")+", a comma list, or all", func(o *O) *[]string { return &o.Benches }),
		intsFlag("threads", "Threads", fmt.Sprintf("waiters N (perf -t), a comma list, each 1..%d", wake.MaxThreads), func(o *O) *[]int { return &o.Threads }),
		intsFlag("hash-threads", "HashThreads", "hash: threads (perf hash -t), a comma list", func(o *O) *[]int { return &o.HashThreads }),
		intsFlag("wakes", "Wakes", "wake: threads woken per call (perf wake -w), a comma list; 0 = all at once", func(o *O) *[]int { return &o.Wakes }),
		intsFlag("wakers", "Wakers", "wake-parallel: waker threads (perf wake-parallel -w), a comma list; each must divide N", func(o *O) *[]int { return &o.Wakers }),
		intsFlag("requeues", "Requeues", "requeue: threads moved per call (perf requeue -q), a comma list; 0 = all at once (perf -B)", func(o *O) *[]int { return &o.Requeues }),
		intFlag("runs", "Runs", "runs per configuration, fresh threads each (perf bench -r)", func(o *O) *int { return &o.Runs }),
		durationFlag("settle", "Settle", "the waker's sleep between seeing every waiter asleep and the timed wake (perf's usleep(100000))", func(o *O) *time.Duration { return &o.Settle }),
		intFlag("futexes", "Futexes", "hash: futex words per thread (perf hash -f)", func(o *O) *int { return &o.Futexes }),
		durationFlag("hash-time", "HashTime", "hash: length of one round (perf hash -r, in seconds there)", func(o *O) *time.Duration { return &o.HashTime }),
		intFlag("hash-rounds", "HashRounds", "hash: rounds per configuration", func(o *O) *int { return &o.HashRounds }),
		intFlag("items", "Items", "condvar: items per round", func(o *O) *int { return &o.Items }),
		intFlag("capacity", "Capacity", "condvar: the bounded queue's capacity", func(o *O) *int { return &o.Capacity }),
		boolFlag("notify-held", "NotifyHeld", "condvar: notify with the mutex held (true) or just after unlocking (false)", func(o *O) *bool { return &o.NotifyHeld }),
		intFlag("pc-rounds", "PCRounds", "condvar: rounds per configuration", func(o *O) *int { return &o.PCRounds }),
	)
}

func newLoadedCmd() *cobra.Command {
	type O = loaded.Options
	return experimentCmd[O]{use: "loaded", def: loaded.DefaultOptions, quick: loaded.QuickOptions, plan: loaded.Plan}.command(
		namesFlag("impl", "Impls", "mechanisms: a name, a comma list, or all available ("+strings.Join(loaded.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		intFlag("message-threads", "MessageThreads", "message threads, each with its workers (schbench -m)", func(o *O) *int { return &o.MessageThreads }),
		intFlag("workers", "Workers", "workers per message thread at 1x (schbench -t); 0 = the CPUs / message threads", func(o *O) *int { return &o.Workers }),
		durationFlag("work", "Work", "calibrated CPU work per request (schbench -F/-n's matrix math)", func(o *O) *time.Duration { return &o.Work }),
		durationFlag("sleep", "Sleep", "a nanosleep inside each request before its work (schbench -s)", func(o *O) *time.Duration { return &o.Sleep }),
		intsFlag("loads", "Loads", fmt.Sprintf("open-loop rates in percent of the nominal capacity, rising, a comma list, each 1..%d; the first is the unloaded reference", loaded.MaxLoad), func(o *O) *[]int { return &o.Loads }),
		boolFlag("closed", "Closed", "also run the closed loop (schbench's default mode)", func(o *O) *bool { return &o.Closed }),
		intsFlag("oversubscribe", "Multiples", "oversubscription sweep: multiples of the 1x workers, a comma list", func(o *O) *[]int { return &o.Multiples }),
		intFlag("oversub-load", "OversubLoad", "the oversubscription sweep's rate, in percent of the nominal capacity", func(o *O) *int { return &o.OversubLoad }),
		stringFlag("arrival", "Arrival", "uniform (wrk2's intended start times) or burst (schbench -R: each second's requests at once)", func(o *O) *string { return &o.Arrival }),
		durationFlag("warmup", "Warmup", "warm-up before the measured window (schbench -w)", func(o *O) *time.Duration { return &o.Warmup }),
		durationFlag("duration", "Duration", "measured window per configuration (schbench -r)", func(o *O) *time.Duration { return &o.Duration }),
		intFlag("rounds", "Rounds", "rounds per configuration; the summary is their median", func(o *O) *int { return &o.Rounds }),
	)
}

func newSpinCmd() *cobra.Command {
	type O = spin.Options
	return experimentCmd[O]{use: "spin", def: spin.DefaultOptions, quick: spin.QuickOptions, plan: spin.Plan}.command(
		namesFlag("impl", "Impls", "strategies beside the fixed budgets: a name, a comma list, or all ("+strings.Join(spin.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		list("budgets", "Budgets", fmt.Sprintf("fixed spin budgets, a comma list: durations 0..%v (0 parks at once) or unbounded (never parks)", spin.MaxBudget),
			func(o *O) *[]time.Duration { return &o.Budgets }, spin.BudgetLabel, spin.ParseBudget, ""),
		durationsFlag("gaps", "Gaps", fmt.Sprintf("the waiter's start -> the waker's signal, a comma list of durations 0..%v", spin.MaxGap), func(o *O) *[]time.Duration { return &o.Gaps }),
		namesFlag("placement", "Placements", "cross-core (two CPUs), oversubscribed (both threads on one CPU), a comma list, or all", func(o *O) *[]string { return &o.Placements }),
		intFlag("waits", "Waits", fmt.Sprintf("measured waits per configuration and round, 1..%d", spin.MaxWaits), func(o *O) *int { return &o.Waits }),
		intFlag("warmup", "Warmup", "waits before them, not recorded", func(o *O) *int { return &o.Warmup }),
		intFlag("rounds", "Rounds", fmt.Sprintf("rounds per configuration, interleaved, 1..%d", spin.MaxRounds), func(o *O) *int { return &o.Rounds }),
		intFlag("pingpong", "PingPong", "round trips of each round's park + wake ping-pong (the competitive budget)", func(o *O) *int { return &o.PingPong }),
	)
}

func newStacksCmd() *cobra.Command {
	type O = stacks.Options
	return experimentCmd[O]{use: "stacks", def: stacks.DefaultOptions, plan: stacks.Plan}.command(
		namesFlag("mech", "Mechanisms", "mechanisms to block: a name, a comma list, or all ("+strings.Join(stacks.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Mechanisms }),
		durationFlag("settle", "SettleTimeout", "how long to wait for every blocked thread to be asleep before sampling anyway", func(o *O) *time.Duration { return &o.SettleTimeout }),
		intFlag("go-frames", "GoFrames", "Go frames to show per goroutine (1..100)", func(o *O) *int { return &o.GoFrames }),
	)
}

func newInversionCmd() *cobra.Command {
	type O = inversion.Options
	return experimentCmd[O]{use: "inversion", def: inversion.DefaultOptions, quick: inversion.QuickOptions, plan: inversion.Plan}.command(
		namesFlag("impl", "Impls", "locks: a name, a comma list, or all ("+strings.Join(inversion.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
		durationFlag("hold", "Hold", "low's critical section: busy work calibrated to this long (1us..10ms)", func(o *O) *time.Duration { return &o.Hold }),
		durationFlag("medium", "Medium", "medium's spin, bounded (100us..100ms)", func(o *O) *time.Duration { return &o.Medium }),
		intFlag("repeats", "Repeats", "rounds per lock (1..10000)", func(o *O) *int { return &o.Repeats }),
		boolFlag("force", "Force", "run even without a CPU for the watchdog or with RT throttling off", func(o *O) *bool { return &o.Force }),
	)
}
