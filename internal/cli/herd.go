package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/herd"
)

func init() { register(newHerdCmd) }

func newHerdCmd() *cobra.Command {
	type O = herd.Options
	return experimentCmd[O]{
		use:   "herd",
		short: "E6: N threads wait on one condvar; one notify_all: who wakes, when, at what cost",
		long: `herd is the study's E6. N waiters wait on one condition variable; once
every waiter is really asleep, the notifier calls notify_all (or N x
notify_one) with the mutex held or released. Each waiter holds the mutex for
--hold once it has it. Per repeat: the notify's return, first = notify ->
first waiter holds the lock, total = notify -> last release, context
switches. A lost wakeup or an overlap of holds fails the run (exit 1).
Implementations: parkbench list. Method and metrics: docs/experiments.md.

Configuration keys are impl/placement/n=N/notify=MODE/lock-held=BOOL.`,
		example: `  parkbench herd --quick
  parkbench herd --impl lot,futex-broadcast --waiters 64 --repeats 10
  parkbench herd --notify notify-all,one-loop --lock-held true,false -o herd.json
  parkbench herd --waiters 1024 --impl lot,futex-requeue,pthread
  parkbench herd --impl lot,lot-wakeall,futex-broadcast --waiters 16 --anatomy`,
		def:   herd.DefaultOptions,
		quick: herd.QuickOptions,
		plan:  herd.Plan,
		flags: flagTable[O]{
			namesFlag("impl", "Impls", "implementations: a name, a comma list, or all available (names: "+strings.Join(herd.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Impls }),
			intsFlag("waiters", "Waiters", fmt.Sprintf("N, or a comma list of N, each 1..%d", herd.MaxWaiters), func(o *O) *[]int { return &o.Waiters }),
			namesFlag("participants", "Participants", "who waits and notifies: threads (locked threads; sync: goroutines), goroutines (every Go implementation on plain goroutines), a comma list, or all", func(o *O) *[]string { return &o.Participants }),
			durationFlag("hold", "Hold", "how long each waiter holds the mutex, busy-waiting on the monotonic clock", func(o *O) *time.Duration { return &o.Hold }),
			namesFlag("notify", "Notify", "notify mode: notify-all (one notify_all), one-loop (N x notify_one), or both as a comma list (all: notify-all's deprecated name)", func(o *O) *[]string { return &o.Notify }),
			boolsFlag("lock-held", "LockHeld", "notify with the mutex held (true), released (false), or both (true,false)", func(o *O) *[]bool { return &o.LockHeld }),
			intFlag("repeats", "Repeats", "repeats per configuration, fresh threads each", func(o *O) *int { return &o.Repeats }),
			namesFlag("placement", "Placements", "unpinned, same-core, cross-core, a comma list, or all", func(o *O) *[]string { return &o.Placements }),
			boolFlag("anatomy", "Anatomy", "trace every repeat (sched_switch of the waiters) and count per notify the waiters that slept again before holding the mutex (Linux, root; docs/anatomy.md)", func(o *O) *bool { return &o.Anatomy }),
		},
	}.command()
}
