package experiments

import (
	"context"
	"runtime"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/results"
)

// SuiteOptions are the options of each experiment of the suite.
type SuiteOptions struct {
	Latency  latency.LatencyOptions
	Selfwake selfwake.Options
	Herd     herd.Options
	Lock     lock.Options
	// RwLock is one small rwlock configuration (parkbench rwlock): NumCPU
	// readers, one writer.
	RwLock lock.RwOptions
	// Wake and Loaded are quick sweeps of parkbench wake (perf bench
	// futex's benches) and loaded (schbench's method): their full
	// defaults are the commands'.
	Wake   wake.Options
	Loaded loaded.Options
}

// DefaultSuite is `parkbench run`: the answer to each experiment's
// question in one screen, about a minute on two vCPUs. latency and
// selfwake run the study's implementations and their floors (OneScreenImpls)
// across CPUs, threads only, without the traced round; herd, lock,
// rwlock, wake and loaded their quick sweeps, trimmed to what their claims
// need (lock on threads; wake at NumCPU threads, one requeue per call;
// loaded without the closed loop). FullSuite, `run --full`, is the whole
// matrix.
func DefaultSuite() SuiteOptions {
	o := QuickSuite()
	o.Latency, o.Selfwake = latency.DefaultLatencyOptions(), selfwake.DefaultOptions()
	impls := OneScreenImpls()
	o.Latency.Impls, o.Selfwake.Impls = impls, append([]string{selfwake.ImplSyscall}, impls...)
	o.Latency.Placements = QuickSuite().Latency.Placements // cross-core, where it can pin
	o.Latency.SchedCounts = false
	o.Latency.Participants, o.Lock.Participants = []string{driver.Threads}, []string{driver.Threads}
	o.Wake.Threads, o.Wake.Requeues = []int{runtime.NumCPU()}, []int{1}
	o.Herd.Waiters = []int{1, 64} // 64 >= herd.ClaimMinN: every claim judges
	o.Loaded.Closed = false
	return o
}

// OneScreenImpls is the implementations of the default run's latency and
// selfwake: the study's (lot, std, crossbeam), the kernel's futex wait as
// Go's thread parker makes it (futex, futex-raw and futex-plain: with and
// without the scheduler's keep-alive, what E12-sched-share and
// E12-really-slept compare), pthread, the Go twin of the C reference, the
// C floors and busy waiting: those of them that run here (elsewhere the
// platform's parker, its C floor and busy waiting).
func OneScreenImpls() []string {
	names := []string{"futex", "futex-raw", "futex-plain", "waitonaddress", "ulock", "pthread", "std", "crossbeam", latency.ImplLot, latency.ImplGoFutex}
	for _, f := range cref.Floors() {
		if !f.Sleeps {
			names = append(names, "spin")
		}
		names = append(names, f.Name)
	}
	return latency.Available(names...)
}

// FullSuite is the whole matrix (`parkbench run --full`): the study's
// method for E12 and E6 over every implementation, placement and
// participant kind. The lock part is lock's quick sweep (2 and 2 x NumCPU
// threads, a few seconds): its full default sweep alone takes about 5
// minutes, and is `parkbench lock`'s.
func FullSuite() SuiteOptions {
	return SuiteOptions{latency.DefaultLatencyOptions(), selfwake.DefaultOptions(), herd.DefaultOptions(), lock.QuickOptions(), defaultSuiteRw(),
		wake.QuickOptions(), loaded.QuickOptions()}.withGoroutines()
}

// withGoroutines adds the goroutine sweep to latency and lock: the same
// implementations between plain goroutines (those that need a locked
// thread are skipped, one warning naming them), at the run's GOMAXPROCS.
// A goroutine configuration costs well under a second.
func (o SuiteOptions) withGoroutines() SuiteOptions {
	both := []string{driver.Threads, driver.Goroutines}
	o.Latency.Participants, o.Lock.Participants = both, both
	return o
}

// QuickSuite is a short run of the suite (under a minute on two vCPUs);
// its lock part is lock.QuickOptions (a few seconds).
func QuickSuite() SuiteOptions {
	return SuiteOptions{latency.QuickLatencyOptions(), selfwake.QuickOptions(), herd.QuickOptions(), lock.QuickOptions(), lock.QuickRwOptions(),
		wake.QuickOptions(), loaded.QuickOptions()}.withGoroutines()
}

// defaultSuiteRw is the suite's rwlock part: the quick configuration
// (NumCPU readers, one writer, no work) timed as the lock default.
func defaultSuiteRw() lock.RwOptions {
	o := lock.QuickRwOptions()
	d := lock.DefaultRwOptions()
	o.Duration, o.Repeats = d.Duration, d.Repeats
	return o
}

// Rounds is the number of rounds per configuration in every experiment
// of the suite, where each round is one sample of the configuration's
// figures (what compare and benchstat judge): latency's and selfwake's
// Rounds, herd's, lock's and rwlock's Repeats, wake's runs (and its hash
// and producer/consumer rounds) and loaded's rounds. It reads latency's.
func (o SuiteOptions) Rounds() int { return o.Latency.Rounds }

// SetRounds sets the rounds per configuration of every experiment (see
// Rounds): more rounds buy precision with time, in proportion.
func (o *SuiteOptions) SetRounds(n int) {
	o.Latency.Rounds, o.Selfwake.Rounds = n, n
	o.Herd.Repeats, o.Lock.Repeats, o.RwLock.Repeats = n, n, n
	o.Wake.Runs, o.Wake.HashRounds, o.Wake.PCRounds, o.Loaded.Rounds = n, n, n, n
}

// Iterations is the number of measured samples per round where a round
// has a count: latency's round trips and selfwake's samples. herd (one
// notify per repeat) and lock (timed runs) have none. It reads latency's.
func (o SuiteOptions) Iterations() int { return o.Latency.Iterations }

// SetIterations sets the samples per round (see Iterations): latency's
// Iterations and GapIterations, selfwake's Samples.
func (o *SuiteOptions) SetIterations(n int) {
	o.Latency.Iterations, o.Latency.GapIterations, o.Selfwake.Samples = n, n, n
}

// Validate checks every experiment's options before anything is measured.
func (o SuiteOptions) Validate() error {
	_, err := PlanSuite(o)
	return err
}

// Suite is a planned suite: calling it measures every experiment in turn.
type Suite func(ctx context.Context, progress driver.Progress) ([]*results.Experiment, error)

// SuitePart is one experiment of the suite, in run order: what run's help
// and the registry say of it (generated from this list) and how it plans.
type SuitePart struct {
	// Name is the experiment's; Summary what the suite runs of it; Rounds
	// what --rounds (SetRounds) sets in it.
	Name, Summary, Rounds string
	plan                  func(SuiteOptions) (driver.Plan, error)
}

// SuiteParts are the suite's experiments in run order. A new experiment
// joins the suite here, in SuiteOptions and in SetRounds.
var SuiteParts = []SuitePart{
	{"latency", "E12 wake latency: the study's implementations across CPUs (--full: every implementation, placement, threads and goroutines)", "rounds",
		func(o SuiteOptions) (driver.Plan, error) { return latency.PlanLatency(o.Latency) }},
	{"selfwake", "E12's reverse check: a thread wakes itself, then waits", "rounds",
		func(o SuiteOptions) (driver.Plan, error) { return selfwake.PlanSelfwake(o.Selfwake) }},
	{"herd", "E6: notify_all with 1 and 64 waiters (--full: 1, 4, 16, 64)", "repeats",
		func(o SuiteOptions) (driver.Plan, error) { return herd.Plan(o.Herd) }},
	{"lock", "the contended mutex (parking_lot's benchmark), its quick sweep: 2 and 2 x NumCPU threads; 'parkbench lock' runs the full one", "repeats",
		func(o SuiteOptions) (driver.Plan, error) { return lock.Plan(o.Lock) }},
	{"rwlock", "one small rwlock configuration: NumCPU readers, one writer", "repeats",
		func(o SuiteOptions) (driver.Plan, error) { return lock.PlanRw(o.RwLock) }},
	{"wake", "the waker's side (perf bench futex's method), a quick sweep (--full: at 16 threads too)", "runs, hash and condvar rounds",
		func(o SuiteOptions) (driver.Plan, error) { return wake.Plan(o.Wake) }},
	{"loaded", "wake latency under load (schbench's method), a quick sweep", "rounds",
		func(o SuiteOptions) (driver.Plan, error) { return loaded.Plan(o.Loaded) }},
}

// SuiteNames are the names of SuiteParts, in run order.
func SuiteNames() []string {
	var names []string
	for _, p := range SuiteParts {
		names = append(names, p.Name)
	}
	return names
}

// PlanSuite validates every experiment's options, once, before anything is
// measured, and returns the run; bad options are the first experiment's
// error, in run order.
func PlanSuite(o SuiteOptions) (Suite, error) {
	plans := make([]driver.Plan, len(SuiteParts))
	for i, p := range SuiteParts {
		var err error
		if plans[i], err = p.plan(o); err != nil {
			return nil, err
		}
	}
	return func(ctx context.Context, progress driver.Progress) ([]*results.Experiment, error) {
		var out []*results.Experiment
		for i, run := range plans {
			exp, err := run(ctx, progress.Stage(SuiteParts[i].Name))
			if err != nil {
				return nil, err
			}
			out = append(out, exp)
		}
		// The reverse-check claim needs latency and selfwake from the same
		// run: it replaces latency's "not evaluated" placeholder.
		out[0].Claims = latency.WithReverse(out[0].Claims, out[0], out[1])
		return out, nil
	}, nil
}

// RunSuite runs the suite: SuiteParts in their order.
func RunSuite(ctx context.Context, o SuiteOptions, progress driver.Progress) ([]*results.Experiment, error) {
	s, err := PlanSuite(o)
	if err != nil {
		return nil, err
	}
	return s(ctx, progress)
}
