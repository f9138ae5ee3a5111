package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/textfmt"
)

func init() { register(newLockCmd) }

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
	cmd := experimentCmd[O]{
		use:   "lock",
		short: "What a contended lock costs: throughput per thread, fairness, CPU, for every lock side by side",
		long: `lock follows parking_lot's benchmark (benchmark/src/bin/mutex.rs): N threads
start together and loop { lock; work-in; unlock; work-between } for
--duration, each lock between 320-byte pads, each thread counting its own
acquisitions. Per repeat: per-thread acquisitions/s (average, median,
standard deviation, as mutex.rs prints them in kHz) and the total; the table
shows the median over --repeats. The work unit is mutex.rs's dependent f64
add and multiply, calibrated in ns on this machine per language, so
--work-in=100ns means 100 ns everywhere (the iteration counts are in each
configuration's params, for running the Rust benchmark with the same).

From the same run: fairness (Jain's index over per-thread counts, min/max
ratio, and the wait for the lock, 1 acquisition in 64 timed on the monotonic
clock into an HDR histogram: p99 and max), and CPU cost (process CPU / wall =
cores busy; CPU ns per acquisition beyond the calibrated work; one thread's
uncontended lock+unlock pair, next to an atomic add).

--hold-sleep D is WebKit's LockFairnessTest (sleep D while holding, instead
of the work-in); --lockskew is golang/go#13086's pattern (two threads: one
holds the lock while sleeping 100 µs and relocks at once, the other sleeps
100 µs and locks briefly).

Every configuration is checked: the locks count their acquisitions under
the lock, and the sum must equal the threads' counts (exit 1 otherwise, or
if a thread is still in the loop 30 s after the stop: a lost wakeup).

Implementations (--impl, default: every one available here):
` + strings.Join(implLines, "\n") + `
  lot@P      lot over parker P, for each P in --lot-parker

'parkbench rwlock' (also 'lock --rwlock') is parking_lot's rwlock benchmark.

Configuration keys are impl/in=D/between=D/locks=K/t=N. See docs/lock.md.`,
		example: `  parkbench lock --quick
  parkbench lock --impl lot,sync,std-futex,c-pthread --threads 1,2,4,8 -o lock.json
  parkbench lock --impl lot,lot-fair,sync --hold-sleep 100us --threads 4
  parkbench lock --lockskew --impl lot,sync,std-futex
  parkbench lock --impl lot --lot-parker futex,pthread,std --threads 2`,
		def:   lock.DefaultOptions,
		quick: lock.QuickOptions,
		plan:  lock.Plan,
		flags: flagTable[O]{
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
		},
	}.command()
	// Read by rwlockAlias before cobra parses: "lock --rwlock" runs rwlock.
	cmd.Flags().Bool("rwlock", false, "run 'parkbench rwlock' (parking_lot's rwlock benchmark) instead; its flags follow")
	return cmd
}
