package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/results"
)

func init() { register(newWakeCmd) }

func newWakeCmd() *cobra.Command {
	type O = wake.Options
	return experimentCmd[O]{
		use:   "wake",
		short: "the waker's side: perf bench futex's wake, wake-parallel, requeue and hash, and parking_lot #448's producer/consumer",
		long: `wake times the thread that wakes, with perf bench futex's method: N waiters
(--threads, perf -t) blocked and seen asleep, the waker sleeps --settle, then
its calls that wake them (--wakes per call, perf -w; 0 = all at once), or
--wakers threads waking N/wakers each (wake-parallel), or requeue them to
another word waking none (--requeues per call, perf -q); hash: operations
per second of waits that fail at once over --futexes words per thread;
condvar: one producer, one consumer, a bounded queue, notify_one per item
(parking_lot #448). Per configuration: perf's mean and (+-) (the standard
error of the mean in % of the mean), the median and p99 over --runs runs.
--format=perf prints perf's own lines, to diff against perf bench futex.
Implementations and their benches: parkbench list. Method and where it
differs from perf: docs/experiments.md.

Configuration keys are impl/bench/n=N/w=K (q=K, wakers=M, futexes=F) or
impl/condvar/capacity=C/held=BOOL.`,
		example: `  parkbench wake --quick
  parkbench wake --impl=futex --bench=wake --threads=2 --format=perf
  parkbench wake --impl=futex,lot,std-requeue --bench=wake,requeue --threads=2,16,128,1024
  parkbench wake --bench=hash --hash-threads=1,2 --impl=futex,lot
  parkbench wake --bench=condvar --impl=lot,std,pthread,sync --items=1000000`,
		def:   wake.DefaultOptions,
		quick: wake.QuickOptions,
		plan:  wake.Plan,
		renderers: map[string]func(io.Writer, *results.File) error{
			wake.FormatPerf: wake.RenderPerf,
		},
		flags: flagTable[O]{
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
		},
	}.command()
}
