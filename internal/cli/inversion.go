package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/inversion"
)

func init() { register(newInversionCmd) }

func newInversionCmd() *cobra.Command {
	type O = inversion.Options
	return experimentCmd[O]{
		use:   "inversion",
		short: "Priority inversion under SCHED_FIFO: how long a high-priority thread waits for a lock a low one holds, with and without priority inheritance",
		long: `inversion pins three SCHED_FIFO threads to one CPU (rt-tests' pi_stress scenario):
low takes the lock and works --hold inside it, high preempts it and blocks on
the lock, medium spins --medium. With priority inheritance (pi-futex,
pthread-pi) the kernel runs low at high's priority and high waits the rest of
the critical section; without it medium runs first and high waits its spin.
The figure is high's wait over --repeats rounds, per lock.
Linux only; needs root, CAP_SYS_NICE or RLIMIT_RTPRIO >= 30, two usable CPUs
(a watchdog runs on the other) and RT throttling on, unless --force.
Every thread is back at SCHED_OTHER on every exit. Not part of run.
Method: docs/experiments.md.`,
		example: `  sudo parkbench inversion
  sudo parkbench inversion --impl pi-futex,std-futex --hold 50us --medium 5ms --repeats 200`,
		def:   inversion.DefaultOptions,
		quick: inversion.QuickOptions,
		plan:  inversion.Plan,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "locks: a name, a comma list, or all ("+strings.Join(inversion.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			durationFlag("hold", "Hold", "low's critical section: busy work calibrated to this long (1us..10ms)", func(o *O) *time.Duration { return &o.Hold }),
			durationFlag("medium", "Medium", "medium's spin, bounded (100us..100ms)", func(o *O) *time.Duration { return &o.Medium }),
			intFlag("repeats", "Repeats", "rounds per lock (1..10000)", func(o *O) *int { return &o.Repeats }),
			boolFlag("force", "Force", "run even without a CPU for the watchdog or with RT throttling off", func(o *O) *bool { return &o.Force }),
		},
	}.command()
}
