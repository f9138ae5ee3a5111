package main

import (
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/spf13/cobra"
)

func init() { register(newStacksCmd) }

func newStacksCmd() *cobra.Command {
	var (
		of     outputFlags
		mech   string
		settle time.Duration
		frames int
	)
	def := stacks.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "stacks",
		Short: "Show where a thread blocked on each mechanism sleeps (wchan, syscall, futex op and address, kernel and Go stacks)",
		Long: `stacks puts one thread (or goroutine) to sleep on each mechanism and shows
where each sleeps: state, wchan, the system call with its futex op and
address decoded, the kernel stack (root only), the goroutine's wait reason
and top Go frames; the notes say how to tell the mechanisms apart in a
production stack dump. Linux only.
Mechanisms: parkbench list. Method: docs/experiments.md.`,
		Example: `  parkbench stacks
  parkbench stacks --mech lot-mutex,lot-condvar,futex
  parkbench stacks --format json -o stacks.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := def
			o.Mechanisms = splitList(mech)
			if len(o.Mechanisms) == 0 {
				return usagef("--mech is empty; give names, a comma list, or all")
			}
			o.SettleTimeout = settle
			o.GoFrames = frames
			return measure(cmd, &of, o, stacks.Run)
		},
	}
	cmd.Flags().StringVar(&mech, "mech", "all", "mechanisms to block: a name, a comma list, or all ("+strings.Join(stacks.ImplNames(), ", ")+")")
	cmd.Flags().DurationVar(&settle, "settle", def.SettleTimeout, "how long to wait for every blocked thread to be asleep before sampling anyway")
	cmd.Flags().IntVar(&frames, "go-frames", def.GoFrames, "Go frames to show per goroutine (1..100)")
	addOutputFlags(cmd, &of)
	return cmd
}
