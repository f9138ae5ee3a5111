package cli

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/stacks"
)

func init() { register(newStacksCmd) }

func newStacksCmd() *cobra.Command {
	type O = stacks.Options
	return experimentCmd[O]{
		use:   "stacks",
		short: "Show where a thread blocked on each mechanism sleeps (wchan, syscall, futex op and address, kernel and Go stacks)",
		long: `stacks puts one thread (or goroutine) to sleep on each mechanism and shows
where each sleeps: state, wchan, the system call with its futex op and
address decoded, the kernel stack (root only), the goroutine's wait reason
and top Go frames; the notes say how to tell the mechanisms apart in a
production stack dump. Linux only.
Mechanisms: parkbench list. Method: docs/experiments.md.`,
		example: `  parkbench stacks
  parkbench stacks --mech lot-mutex,lot-condvar,futex
  parkbench stacks --format json -o stacks.json`,
		def:  stacks.DefaultOptions,
		plan: stacks.Plan,
		flags: flagTable[O]{
			namesFlag("mech", "Mechanisms", "mechanisms to block: a name, a comma list, or all ("+strings.Join(stacks.ImplNames(), ", ")+")", func(o *O) *[]string { return &o.Mechanisms }),
			durationFlag("settle", "SettleTimeout", "how long to wait for every blocked thread to be asleep before sampling anyway", func(o *O) *time.Duration { return &o.SettleTimeout }),
			intFlag("go-frames", "GoFrames", "Go frames to show per goroutine (1..100)", func(o *O) *int { return &o.GoFrames }),
		},
	}.command()
}
