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
		Long: `stacks is the Linux analogue of the study's park-stack experiment. It holds a
lot.Mutex and a sync.Mutex and sets up the other mechanisms, puts one thread
(or goroutine) to sleep on each (lot mutex, lot condvar, futex and pthread
thread parkers, std and crossbeam token parkers, sync.Mutex from a plain and
from a locked goroutine, a channel receive), waits until each is really
asleep, and shows for each where it sleeps: state, wchan, the system call
with its futex op and address decoded and matched against the mechanism's
own objects, the kernel stack (/proc/self/task/TID/stack, root only), and the
goroutine's wait reason and top Go frames. Then it wakes everything and joins.

The point, as in the study: the same stack top can mean several things. The
notes say, per mechanism, what a production stack dump or perf/gdb shows and
how to tell the mechanisms apart. Linux only.`,
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
