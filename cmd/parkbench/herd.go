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
	var implLines []string
	for _, im := range herd.Impls() {
		line := fmt.Sprintf("  %-16s %s", im.Name, im.Summary)
		if im.Why != "" {
			line += " [unavailable: " + im.Why + "]"
		}
		implLines = append(implLines, line)
	}
	cmd := &cobra.Command{
		Use:   "herd",
		Short: "E6: N threads wait on one condvar; one notify_all: who wakes, when, at what cost",
		Long: `herd is the study's E6. N waiters wait on one condition variable with one
mutex; once every waiter is really asleep, the notifier sets the condition and
calls notify_all (or N x notify_one, --notify=one-loop) with the mutex held
(default) or released (--lock-held=false: the other branch of parking_lot's
validate). Each waiter, once it holds the mutex, stamps the time, holds it for
--hold by busy-waiting on the monotonic clock, releases, and sleeps until the
repeat is over (so no thread's exit lands inside the measured chain). Each
repeat uses fresh threads.

"Really asleep": every waiter increments a counter under the mutex right
before it waits, and the notifier waits for the count to reach N; then it
polls /proc/self/task/TID/stat until every waiter thread's state is S
(sleeping), within 10 s + N x 10 ms. pthread's C threads report their tid
(syscall(SYS_gettid)) and are polled the same way. sync's goroutines have no
thread state to poll: the count plus a settle of 2 ms + N x 20 us.

Per repeat: the notify's return value (lot: woken + requeued, must be N; -1
for APIs that return nothing), first = notify -> first waiter holds the lock,
total = notify -> last release, the CPU of the notifier and of the first
waiter, csw proc = RUSAGE_SELF switches from the notify to the last release
(every thread of the process, Go runtime included, and each released waiter's
sleep until the end: ideal about N), csw parts = the sum of each waiter's
RUSAGE_THREAD switches from right before its wait to right after its release
(it includes the one park every waiter must make, so the ideal is N; a herd
member that wakes and sleeps again on the mutex adds one), lot's unparked and
requeued counts. Every repeat checks that no two holds overlapped and that each
waiter returned exactly once; a failed check, or a repeat still unfinished
10 s + N x hold x 10 after the notify (a lost wakeup), fails the run (exit 1).
The table shows medians over repeats; the result file has min and max too and
an HDR histogram of first-waiter latency.

Placements: unpinned (default); same-core: the notifier and every waiter on the
first allowed CPU; cross-core: the notifier on the first allowed CPU, the
waiters round-robin over the others. sync runs unpinned only.

Implementations (--impl, default: every one available here):
` + strings.Join(implLines, "\n") + `

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
