package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/lock"
)

func init() { register(newLockCmd) }

func newLockCmd() *cobra.Command {
	var (
		of                  outputFlags
		impl, lotParker     string
		threads, locks      string
		readers, writers    string
		workIn, workBetween string
		duration, holdSleep time.Duration
		repeats             int
		skew, quick, rw     bool
	)
	def := lock.DefaultOptions()
	var implLines []string
	for _, im := range lock.Impls() {
		line := fmt.Sprintf("  %-10s %s", im.Name, im.Summary)
		if im.Why != "" {
			line += " [unavailable: " + im.Why + "]"
		}
		implLines = append(implLines, line)
	}
	cmd := &cobra.Command{
		Use:   "lock",
		Short: "What a contended lock costs: throughput per thread, fairness, CPU, for every lock side by side",
		Long: `lock follows parking_lot's benchmark (benchmark/src/bin/mutex.rs): N threads
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

--rwlock is parking_lot's benchmark/src/bin/rwlock.rs: --writers threads
take the write lock and --readers threads the read lock of one rwlock, both
with the --work-in and --work-between work (as rwlock.rs); read and write
throughput, per-class median kHz and Jain's index, and the longest sampled
write wait are reported separately (experiment "rwlock"). Implementations:
lot (lot.RwLock), sync (sync.RWMutex), std-futex (Rust std's futex rwlock),
pthread (pthread_rwlock_t through cgo), c-pthread (the loop in C threads).

Configuration keys are impl/in=D/between=D/locks=K/t=N (--rwlock:
impl/in=D/between=D/w=W/r=R). See docs/lock.md.`,
		Example: `  parkbench lock --quick
  parkbench lock --impl lot,sync,std-futex,c-pthread --threads 1,2,4,8 -o lock.json
  parkbench lock --impl lot,lot-fair,sync --hold-sleep 100us --threads 4
  parkbench lock --lockskew --impl lot,sync,std-futex
  parkbench lock --impl lot --lot-parker futex,pthread,std --threads 2
  parkbench lock --rwlock --quick
  parkbench lock --rwlock --readers 4 --writers 1,2 --work-in 100ns --work-between 1us`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := of.check(); err != nil {
				return err
			}
			o := def
			if quick {
				o = lock.QuickOptions()
			}
			o.RwLock = rw
			changed := func(name string) bool { return cmd.Flags().Changed(name) || !quick }
			if impl != "all" {
				if o.Impls = splitList(impl); len(o.Impls) == 0 {
					return usagef("--impl is empty; give names, a comma list, or all")
				}
			}
			o.LotParkers = splitList(lotParker)
			var err error
			if changed("threads") && threads != "" {
				if o.Threads, err = parseInts("threads", threads); err != nil {
					return err
				}
			}
			if cmd.Flags().Changed("locks") {
				if o.Locks, err = parseInts("locks", locks); err != nil {
					return err
				}
			}
			if changed("work-in") {
				if o.WorkIn, err = parseDurations("work-in", workIn); err != nil {
					return err
				}
			}
			if changed("work-between") {
				if o.WorkBetween, err = parseDurations("work-between", workBetween); err != nil {
					return err
				}
			}
			if changed("duration") {
				o.Duration = duration
			}
			if changed("repeats") {
				o.Repeats = repeats
			}
			o.HoldSleep, o.Skew = holdSleep, skew
			if changed("readers") {
				if o.Readers, err = parseInts("readers", readers); err != nil {
					return err
				}
			}
			if changed("writers") {
				if o.Writers, err = parseInts("writers", writers); err != nil {
					return err
				}
			}
			return measure(cmd, &of, o, lock.Run)
		},
	}
	q := lock.QuickOptions()
	fl := cmd.Flags()
	fl.StringVar(&impl, "impl", "all", "implementations: a name, a comma list, or all available (names: "+strings.Join(lock.ImplNames(), ", ")+")")
	fl.StringVar(&lotParker, "lot-parker", "", "also run lot over each of these parkers (comma list), as impl lot@PARKER")
	fl.StringVar(&threads, "threads", joinInts(def.Threads), fmt.Sprintf("thread counts, comma list, each 1..%d (default 1,2,4,NumCPU,2xNumCPU; --quick: %s)", lock.MaxThreads, joinInts(q.Threads)))
	fl.StringVar(&workIn, "work-in", "0,200ns", fmt.Sprintf("work inside the lock, comma list of durations 0..%v (--quick: 0)", lock.MaxWork))
	fl.StringVar(&workBetween, "work-between", "0,200ns", fmt.Sprintf("work between acquisitions, comma list of durations 0..%v (--quick: 0)", lock.MaxWork))
	fl.StringVar(&locks, "locks", "1", fmt.Sprintf("number of locks, comma list, each 1..%d: with K > 1 each acquisition picks one of K at random (lock-bench)", lock.MaxLocks))
	fl.DurationVar(&duration, "duration", def.Duration, fmt.Sprintf("length of one timed run (--quick: %v)", q.Duration))
	fl.IntVar(&repeats, "repeats", def.Repeats, fmt.Sprintf("timed runs per configuration; figures are their median (--quick: %d)", q.Repeats))
	fl.DurationVar(&holdSleep, "hold-sleep", 0, "WebKit LockFairnessTest mode: sleep this long while holding the lock (0: off)")
	fl.BoolVar(&skew, "lockskew", false, "golang/go#13086's lockskew pattern (two threads; 100 µs sleeps)")
	fl.BoolVar(&rw, "rwlock", false, "parking_lot's rwlock benchmark (rwlock.rs) instead: --writers and --readers on one rwlock, --work-in/--work-between for both; impls: "+strings.Join(lock.RwImplNames(), ", "))
	fl.StringVar(&readers, "readers", joinInts(def.Readers), fmt.Sprintf("--rwlock: reader thread counts, comma list, each 0..%d (--quick: %s)", lock.MaxThreads, joinInts(q.Readers)))
	fl.StringVar(&writers, "writers", joinInts(def.Writers), fmt.Sprintf("--rwlock: writer thread counts, comma list, each 0..%d (--quick: %s)", lock.MaxThreads, joinInts(q.Writers)))
	fl.BoolVar(&quick, "quick", false, "a short run: 2 and 2xNumCPU threads, no work, 100 ms x 2 repeats")
	addOutputFlags(cmd, &of)
	return cmd
}

func parseDurations(flag, s string) ([]time.Duration, error) {
	items := splitList(s)
	if len(items) == 0 {
		return nil, usagef("--%s is empty", flag)
	}
	var out []time.Duration
	for _, it := range items {
		d, err := time.ParseDuration(it)
		if err != nil {
			return nil, usagef("invalid --%s item %q: want a duration such as 0, 100ns or 1us", flag, it)
		}
		out = append(out, d)
	}
	return out, nil
}
