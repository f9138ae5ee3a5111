package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/lock"
)

func init() { register(newRwlockCmd) }

// The rwlock benchmark, experiment "rwlock" of internal/experiments/lock.
// It was "lock --rwlock", which still works (rwlockAlias).
func newRwlockCmd() *cobra.Command {
	type O = lock.RwOptions
	return experimentCmd[O]{
		use:   "rwlock",
		short: "What a contended rwlock costs: readers and writers on one rwlock, throughput and fairness per class",
		long: `rwlock is parking_lot's benchmark/src/bin/rwlock.rs: --writers threads
take the write lock and --readers threads the read lock of one rwlock, both
with the --work-in and --work-between work (as rwlock.rs); read and write
throughput, per-class median kHz and Jain's index, and the longest sampled
write wait are reported separately (experiment "rwlock"). Implementations:
lot (lot.RwLock), sync (sync.RWMutex), std-futex (Rust std's futex rwlock),
pthread (pthread_rwlock_t through cgo), c-pthread (the loop in C threads).
'parkbench lock --rwlock' is the same command.

Configuration keys are impl/in=D/between=D/w=W/r=R. See docs/lock.md.`,
		example: `  parkbench rwlock --quick
  parkbench rwlock --readers 4 --writers 1,2 --work-in 100ns --work-between 1us`,
		def:   lock.DefaultRwOptions,
		quick: lock.QuickRwOptions,
		plan:  lock.PlanRw,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available (names: "+strings.Join(lock.RwImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			intsFlag("readers", "Readers", fmt.Sprintf("reader thread counts, comma list, each 0..%d", lock.MaxThreads), func(o *O) *[]int { return &o.Readers }),
			intsFlag("writers", "Writers", fmt.Sprintf("writer thread counts, comma list, each 0..%d", lock.MaxThreads), func(o *O) *[]int { return &o.Writers }),
			durationsFlag("work-in", "WorkIn", fmt.Sprintf("work inside the lock, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkIn }),
			durationsFlag("work-between", "WorkBetween", fmt.Sprintf("work between acquisitions, comma list of durations 0..%v", lock.MaxWork), func(o *O) *[]time.Duration { return &o.WorkBetween }),
			durationFlag("duration", "Duration", "length of one timed run", func(o *O) *time.Duration { return &o.Duration }),
			intFlag("repeats", "Repeats", "timed runs per configuration; figures are their median", func(o *O) *int { return &o.Repeats }),
		},
	}.command()
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
