package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/spf13/cobra"
)

func init() { register(newHerdCmd) }

func newHerdCmd() *cobra.Command {
	var (
		of         outputFlags
		impl       string
		waiters    string
		hold       time.Duration
		notify     string
		lockHeld   string
		repeats    int
		placements string
		quick      bool
	)
	def := herd.DefaultOptions()
	cmd := &cobra.Command{
		Use:   "herd",
		Short: "E6: N threads wait on one condvar; one notify_all: who wakes, when, at what cost",
		Long: `herd is the study's E6. N waiters wait on one condition variable; once
every waiter is really asleep, the notifier calls notify_all (or N x
notify_one) with the mutex held or released. Each waiter holds the mutex for
--hold once it has it. Per repeat: the notify's return, first = notify ->
first waiter holds the lock, total = notify -> last release, context
switches. A lost wakeup or an overlap of holds fails the run (exit 1).
Implementations: parkbench list. Method and metrics: docs/experiments.md.

Configuration keys are impl/placement/n=N/notify=MODE/lock-held=BOOL.`,
		Example: `  parkbench herd --quick
  parkbench herd --impl lot,futex-broadcast --waiters 64 --repeats 10
  parkbench herd --notify all,one-loop --lock-held true,false -o herd.json
  parkbench herd --waiters 1024 --impl lot,futex-requeue,pthread`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := def
			if quick {
				o = herd.QuickOptions()
			}
			if impl != "all" {
				o.Impls = splitList(impl)
				if len(o.Impls) == 0 {
					return usagef("--impl is empty; give names, a comma list, or all")
				}
			}
			if cmd.Flags().Changed("waiters") || !quick {
				ns, err := parseInts("waiters", waiters)
				if err != nil {
					return err
				}
				o.Waiters = ns
			}
			if cmd.Flags().Changed("repeats") || !quick {
				o.Repeats = repeats
			}
			o.Hold = hold
			o.Notify = splitList(notify)
			held, err := parseBools("lock-held", lockHeld)
			if err != nil {
				return err
			}
			o.LockHeld = held
			o.Placements = splitList(placements)
			return measure(cmd, &of, o, herd.Run)
		},
	}
	cmd.Flags().StringVar(&impl, "impl", "all", "implementations: a name, a comma list, or all available (names: "+strings.Join(herd.ImplNames(), ", ")+")")
	cmd.Flags().StringVar(&waiters, "waiters", joinInts(def.Waiters), fmt.Sprintf("N, or a comma list of N, each 1..%d (--quick: %s)", herd.MaxWaiters, joinInts(herd.QuickOptions().Waiters)))
	cmd.Flags().DurationVar(&hold, "hold", def.Hold, "how long each waiter holds the mutex, busy-waiting on the monotonic clock")
	cmd.Flags().StringVar(&notify, "notify", "all", "notify mode: all (one notify_all), one-loop (N x notify_one), or both as a comma list")
	cmd.Flags().StringVar(&lockHeld, "lock-held", "true", "notify with the mutex held (true), released (false), or both (true,false)")
	cmd.Flags().IntVar(&repeats, "repeats", def.Repeats, fmt.Sprintf("repeats per configuration, fresh threads each (--quick: %d)", herd.QuickOptions().Repeats))
	cmd.Flags().StringVar(&placements, "placement", "unpinned", "unpinned, same-core, cross-core, or a comma list")
	cmd.Flags().BoolVar(&quick, "quick", false, "waiters 1,16,64 and 3 repeats")
	addOutputFlags(cmd, &of)
	return cmd
}

func parseInts(flag, s string) ([]int, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--%s is empty", flag)
	}
	var out []int
	for _, it := range items {
		n, err := strconv.Atoi(it)
		if err != nil {
			return nil, usagef("invalid --%s item %q: want a whole number", flag, it)
		}
		out = append(out, n)
	}
	return out, nil
}

func parseBools(flag, s string) ([]bool, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--%s is empty", flag)
	}
	var out []bool
	for _, it := range items {
		b, err := strconv.ParseBool(it)
		if err != nil {
			return nil, usagef("invalid --%s item %q: want true or false", flag, it)
		}
		out = append(out, b)
	}
	return out, nil
}

func joinInts(v []int) string {
	var s []string
	for _, n := range v {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
}
