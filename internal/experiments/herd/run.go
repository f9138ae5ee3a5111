package herd

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// configGroup is the configurations that share N, placement, notify mode and
// lock-held: one per implementation, run repeat-interleaved.
type configGroup struct {
	n         int
	placement string
	oneLoop   bool
	lockHeld  bool
}

// Run runs E6: N threads wait on one condition variable with one mutex;
// once every waiter is really asleep, the notifier sets the condition and
// calls notify_all (or N x notify_one), with the mutex held or released;
// each waiter, holding the mutex, stamps the time, holds it for Hold,
// stamps again, releases, and sleeps until the repeat is over (then exits).
//
// Method, per repeat (fresh threads every repeat):
//
//   - Every Go participant is a goroutine locked to its OS thread
//     (osthread.Go), except for sync, whose waiters and notifier are plain
//     goroutines. pthread runs entirely in C threads (internal/cref).
//   - "Really asleep" is established in two steps. Each waiter increments a
//     counter under the mutex right before it waits; the notifier polls
//     the counter (under the mutex, every 50 us) until it is N. After
//     counting itself in a waiter does nothing but read its RUSAGE_THREAD
//     and enter the wait, so the only place it can sleep from then on is
//     the wait itself. Then the notifier reads each waiter thread's state
//     letter in /proc/self/task/TID/stat (osthread.State; the C waiters
//     publish their tid from syscall(SYS_gettid)) every 50 us until every
//     one has been seen 'S'. Both steps together are bounded by
//     10 s + N x 10 ms; exceeding it fails the run. sync's goroutines have
//     no thread of their own: it waits for the count plus a settle of
//     2 ms + N x 20 us and says so in its Detail.
//   - The notifier reads RUSAGE_SELF, (locks the mutex, if lock-held,) sets
//     the condition, reads its CPU and the clock (t0: right before the
//     notify), notifies, unlocks; with lock-held=false it sets the
//     condition under the mutex, unlocks, then takes t0 and notifies. It
//     then blocks until the last waiter has released (a channel; in C a
//     semaphore), at most the watchdog 10 s + N x hold x 10, and reads
//     RUSAGE_SELF again. A repeat that misses the watchdog is a lost
//     wakeup: the run fails naming the implementation and N.
//   - first_ns = min over waiters of (hold start - t0); total_ns = max over
//     waiters of (hold end - t0); handoff_ns = median gap between one
//     hold's end and the next hold's start. The holds, sorted by start,
//     must not overlap, and each waiter must leave its wait loop exactly
//     once: either check failing is a correctness failure (an error).
//   - ctxsw_process is the RUSAGE_SELF delta over the notify window: every
//     thread of the process, including the Go runtime's (sysmon, idle Ms)
//     and the notifier's own sleep while it waits for the end. It does not
//     contain the waiters' initial parks, which happened before t0.
//     ctxsw_participants is the sum over waiters of each waiter's
//     RUSAGE_THREAD delta from right before its wait (read under the
//     mutex, after counting in) to right after its release. It therefore
//     contains exactly one switch per waiter that every implementation pays
//     (the park we verified, switched out before t0) plus everything else:
//     a herd member that wakes, finds the mutex taken and sleeps again
//     costs one more; preemptions count too. The ideal is N;
//     ctxsw_participants_extra = ctxsw_participants - N is what the
//     implementation added; ctxsw_participants_invol is the involuntary
//     part (preemptions: a loaded machine, not the implementation). Not
//     measured for sync (goroutines migrate
//     between threads). ctxsw_notifier is the notifier thread's own delta.
//   - unparked / requeued: lot's UnparkResult of the notify_all
//     (lot-wakeall: all unparked); futex-broadcast: the count FUTEX_WAKE
//     woke; futex-requeue: FUTEX_CMP_REQUEUE's woken / requeued split.
//     notify_return is the notify's return value for lot and lot-wakeall
//     (N x notify_one: the number that returned true), -1 for APIs that
//     return nothing.
//
// Runtime: for locked-thread implementations GOMAXPROCS is N+2 (runenv),
// so that a herd of N threads woken at once never waits for a P (a thread
// blocked in a futex holds none, but each woken one needs one to run its
// Go code; with fewer, the Go scheduler would park the surplus and become
// part of the measured herd). sync runs at GOMAXPROCS = NumCPU, what a Go
// program has by default. Each configuration records its GOMAXPROCS in
// Params; the experiment's Runtime records the largest. GC is off for the
// whole run. Configurations sharing N, placement, notify mode and lock-held
// run repeat-interleaved (repeat 1 of every implementation, then repeat
// 2, ...) so that drift in the machine's load spreads evenly.
//
// Cancellation is checked between repeats and while waiting for the
// waiters to sleep; a cancelled repeat still notifies so that every thread
// exits, and Run returns ctx's error.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

func (p *herdPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	if p.o.Mode == ModeIdle {
		return p.runIdle(ctx, progress)
	}
	o, impls := p.o, p.Items
	exp := &results.Experiment{Name: "herd", Metrics: Metrics, Options: o.asMap(impls), Warnings: p.Warnings}

	var groups []configGroup
	for _, pl := range p.placements {
		for _, nm := range o.Notify {
			for _, held := range o.LockHeld {
				for _, n := range o.Waiters {
					groups = append(groups, configGroup{n: n, placement: pl, oneLoop: nm == ModeOneLoop, lockHeld: held})
				}
			}
		}
	}
	// Which implementations run in which group.
	runs := func(g configGroup) []implSpec {
		var out []implSpec
		for _, im := range impls {
			if im.goroutines && g.placement != driver.Unpinned {
				continue
			}
			// lot-wakeall has no notify_one of its own: N x notify_one
			// would be lot's, already measured as lot.
			if im.name == "lot-wakeall" && g.oneLoop {
				continue
			}
			out = append(out, im)
		}
		return out
	}
	total := 0
	for _, g := range groups {
		total += len(runs(g)) * o.Repeats
	}
	if total == 0 {
		return nil, driver.Bad("Placements", "nothing to run: sync (goroutines) cannot be pinned, and no other implementation was chosen")
	}
	for _, im := range impls {
		if im.name == "lot-wakeall" && slices.Contains(o.Notify, ModeOneLoop) {
			exp.Warnings = append(exp.Warnings, "lot-wakeall skipped with --notify=one-loop: it has no notify_one of its own (N x notify_one would be lot's)")
		}
		if im.goroutines && o.Anatomy {
			exp.Warnings = append(exp.Warnings, fmt.Sprintf("%s not traced by --anatomy: goroutines have no thread of their own to follow", im.label()))
		}
		if im.goroutines {
			for _, pl := range p.placements {
				if pl != driver.Unpinned {
					exp.Warnings = append(exp.Warnings, fmt.Sprintf("%s runs only unpinned (goroutines cannot be pinned); skipped at placement %s", im.label(), pl))
				}
			}
		}
	}
	if !threadStateReadable() {
		exp.Notes = append(exp.Notes, "no thread state can be read on "+runtime.GOOS+": \"every waiter asleep\" is each waiter counted in under the mutex plus a settle delay (committed to wait), not seen asleep in the kernel as on Linux")
	}
	exp.Notes = append(exp.Notes, "each configuration's rounds[0].histogram holds the first-waiter latency (ns) of every repeat; params.sleep_check says how \"every waiter asleep\" was established")
	exp.Notes = append(exp.Notes, fmt.Sprintf("hold %v per waiter; first = notify -> first waiter holds the lock; total = notify -> last release; csw parts = waiters' RUSAGE_THREAD from right before their wait to after their release (one park each is unavoidable: ideal N); csw proc = RUSAGE_SELF over the notify window", o.Hold))
	if im := lot.CurrentBackend(); im.Name != "" {
		exp.Notes = append(exp.Notes, "lot and lot-wakeall park through the "+im.Name+" thread parker")
	}

	var tally runenv.Tally
	done := 0
	var configs []*results.Config
	for _, g := range groups {
		ims := runs(g)
		if len(ims) == 0 {
			continue
		}
		notifierCPU, waiterCPUs, err := driver.GroupCPUs("Placements", g.placement, g.n)
		if err != nil {
			return nil, err
		}
		cfgs := make([]*results.Config, len(ims))
		procs := make([]int, len(ims))
		raws, w, err := repeatGroup(ctx, &tally, g.n, o.Repeats, len(ims), func(r, k int) (*repeatResult, error) {
			im := ims[k]
			// The run's GOMAXPROCS (runenv's), put back after every
			// goroutines repeat.
			threadProcs := runtime.GOMAXPROCS(0)
			procs[k] = threadProcs
			if im.goroutines {
				procs[k] = runtime.NumCPU()
				runtime.GOMAXPROCS(procs[k])
			}
			sp := repeatSpec{impl: im, n: g.n, hold: o.Hold, oneLoop: g.oneLoop, lockHeld: g.lockHeld, notifierCPU: notifierCPU, waiterCPUs: waiterCPUs,
				trace: o.Anatomy && !im.goroutines}
			if im.goroutines {
				sp.notifierCPU, sp.waiterCPUs = -1, nil
			}
			progress.Report(done, total, fmt.Sprintf("%s (repeat %d/%d)", configKey(im.label(), g), r+1, o.Repeats))
			raw, err := runRepeat(ctx, sp)
			if im.goroutines {
				runtime.GOMAXPROCS(threadProcs)
			}
			done++
			if err != nil {
				return nil, err
			}
			return raw, checkRaw(raw, im.name, g.n)
		})
		if err != nil {
			return nil, err
		}
		for k, im := range ims {
			c, err := buildConfig(im, g, o, raws[k], procs[k])
			if err != nil {
				return nil, err
			}
			c.Probe = w.probe
			driver.RecordForeignLoad(c, w.foreign)
			cfgs[k] = c
		}
		configs = append(configs, cfgs...)
	}
	progress.Report(total, total, "")
	exp.Runtime = tally.Runtime("syscall")
	exp.Configs = configs
	exp.Claims = Claims(configs, o.Hold)
	if o.Anatomy {
		exp.Metrics = append(slices.Clone(Metrics), anatomy.HerdMetricSpecs()...)
		exp.Claims = append(exp.Claims, TraceClaims(configs)...)
		exp.Notes = append(exp.Notes, "--anatomy: every repeat of a thread implementation traced (sched_switch of the waiters, from right before the notify to the last release): its timings include the tracing's cost; slept again = waiters switched in after the notify that slept again before holding the mutex")
	}
	return exp, nil
}

func configKey(impl string, g configGroup) string {
	nm := ModeAll
	if g.oneLoop {
		nm = ModeOneLoop
	}
	// n last: report pivots herd by N on the "/n=N" suffix.
	return fmt.Sprintf("%s/%s/notify=%s/lock-held=%v/n=%d", impl, g.placement, nm, g.lockHeld, g.n)
}

// asMap is the options' echo (their opt tags) with the implementations
// planned.
func (o Options) asMap(impls []implSpec) map[string]string {
	var names []string
	for _, im := range impls {
		names = append(names, im.label())
	}
	m := driver.Echo(o)
	m["impl"] = strings.Join(names, ",")
	return m
}

// window is what a group of configurations measured together ran under:
// the probe taken before it, the foreign load during it, the runtime.
type window struct {
	probe   *results.Probe
	foreign *results.Foreign
	runtime results.Runtime
}

// repeatGroup runs repeats repeats of count configurations of n waiters,
// repeat r of each before repeat r + 1 of any (one(r, k)), inside one
// window: the runtime held for n + 2 participants (runenv, tallied), the
// foreign load watched. It returns each configuration's repeats in order,
// or stops at the first error of one, or with ctx.Err() once ctx is done,
// and returns that error after the window closes.
func repeatGroup[T any](ctx context.Context, tally *runenv.Tally, n, repeats, count int, one func(r, k int) (T, error)) ([][]T, window, error) {
	if driver.Interrupted(ctx) { // before the probe, which takes its time
		return nil, window{}, ctx.Err()
	}
	out := make([][]T, count)
	w := window{probe: probe.Measure(probe.DefaultCPUs())}
	env := runenv.Enter(n + 2)
	fg := probe.StartForeign()
	err := func() error {
		for r := range repeats {
			for k := range count {
				if driver.Interrupted(ctx) {
					return ctx.Err()
				}
				v, err := one(r, k)
				if err != nil {
					return err
				}
				out[k] = append(out[k], v)
			}
		}
		return nil
	}()
	w.foreign = fg.Stop()
	w.runtime = tally.End(env)
	return out, w, err
}
