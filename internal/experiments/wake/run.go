package wake

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/machine"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Metric names of wake (summary keys; the per-run ones are in Rounds).
const (
	// The waker's time per run (wake, requeue) or per waker call
	// (wake-parallel), over the runs: perf's mean and (+-), and a median
	// and p99.
	MWakerMean   = "waker_mean_ns"
	MWakerSEM    = "waker_sem_pct" // standard error of the mean, % of the mean: perf's (+-X%)
	MWakerMedian = "waker_median_ns"
	MWakerP99    = "waker_p99_ns"
	MPerThread   = "per_thread_ns" // waker_mean_ns / N: the waker's cost per waiter
	MWoken       = "woken"         // mean woken (or requeued) per run, perf's "Wokeup %d of %d"
	MCalls       = "calls"         // mean calls per run
	MCallMedian  = "call_median_ns"
	MCallP99     = "call_p99_ns"
	// hash: per-thread operations per second (perf's "Averaged"), its
	// (+-), and the threads' sum.
	MOpsPerSec   = "ops_per_sec"
	MOpsSEM      = "ops_sem_pct"
	MOpsTotal    = "ops_total_per_sec"
	MNsPerOp     = "ns_per_op"
	MUnexpected  = "unexpected_ops"
	MItemsPerSec = "items_per_sec" // condvar
	MNsPerItem   = "ns_per_item"
	MCswPerItem  = "ctxsw_per_item"
	MWaitPerItem = "waits_per_item"
	// per run
	mWakerNs = "waker_ns"
	mElapsed = "elapsed_ns" // a hash round's length
)

// SummaryKeys are every summary key a wake configuration may have.
var SummaryKeys = []string{MWakerMean, MWakerSEM, MWakerMedian, MWakerP99, MPerThread, MWoken, MCalls, MCallMedian, MCallP99,
	MOpsPerSec, MOpsSEM, MOpsTotal, MNsPerOp, MUnexpected, MItemsPerSec, MNsPerItem, MCswPerItem, MWaitPerItem}

// cfgSpec is one configuration: a bench of an implementation at N waiters
// with k per call (wake, requeue) or m wakers (wake-parallel).
type cfgSpec struct {
	im    implSpec
	bench string
	n     int // waiters (hash: threads)
	k     int // per call, 0: all (wake, requeue)
	m     int // wakers (wake-parallel)
	group int // configurations of one group run round-interleaved
}

func kName(k int) string {
	if k <= 0 {
		return "all"
	}
	return strconv.Itoa(k)
}

// key is the configuration's key: impl/bench/n=N/...; n first, so that
// configurations of one sweep sort together.
func (c cfgSpec) key(o Options) string {
	base := c.im.name + "/" + c.bench
	switch c.bench {
	case BenchWake:
		return fmt.Sprintf("%s/n=%d/w=%s", base, c.n, kName(c.k))
	case BenchRequeue:
		return fmt.Sprintf("%s/n=%d/q=%s", base, c.n, kName(c.k))
	case BenchParallel:
		return fmt.Sprintf("%s/n=%d/wakers=%d", base, c.n, c.m)
	case BenchHash:
		return fmt.Sprintf("%s/n=%d/futexes=%d", base, c.n, o.Futexes)
	}
	return fmt.Sprintf("%s/capacity=%d/held=%v", base, o.Capacity, o.NotifyHeld)
}

// plan lists the configurations, bench by bench, in --impl order; skipped
// says which chosen implementation lacks a chosen bench or per-call count.
func (o Options) plan(impls []implSpec, benches []string) (cfgs []cfgSpec, skipped []string) {
	// Groups run their configurations' runs (rounds) interleaved, run 1 of
	// each, then run 2, ..., so that a change in the machine's load hits
	// every implementation alike: the waker benches of one N form a group
	// (the claims compare their implementations, per-call counts and
	// benches at one N), each hash thread count one, the producer/consumer
	// one.
	group := 0
	add := func(c cfgSpec) {
		c.group = group
		cfgs = append(cfgs, c)
	}
	for _, n := range o.Threads {
		before := len(cfgs)
		for _, b := range benches {
			switch b {
			case BenchWake, BenchRequeue:
				ks := o.Wakes
				if b == BenchRequeue {
					ks = o.Requeues
				}
				for _, k := range ks {
					if k > n {
						continue // more per call than waiters: the same as all
					}
					for _, im := range impls {
						ok := im.wakeK
						if b == BenchRequeue {
							ok = im.requeueK
						}
						switch {
						case !im.offers(b):
						case !ok(k):
							skipped = append(skipped, fmt.Sprintf("%s %s with %s per call: %s takes one or all at once only", im.name, b, kName(k), im.name))
						default:
							add(cfgSpec{im: im, bench: b, n: n, k: k})
						}
					}
				}
			case BenchParallel:
				for _, m := range o.Wakers {
					for _, im := range impls {
						if im.offers(b) {
							add(cfgSpec{im: im, bench: b, n: n, m: min(m, n)})
						}
					}
				}
			}
		}
		if len(cfgs) > before {
			group++
		}
	}
	if slices.Contains(benches, BenchHash) {
		for _, n := range o.HashThreads {
			before := len(cfgs)
			for _, im := range impls {
				if im.offers(BenchHash) {
					add(cfgSpec{im: im, bench: BenchHash, n: n})
				}
			}
			if len(cfgs) > before {
				group++
			}
		}
	}
	if slices.Contains(benches, BenchCondvar) {
		for _, im := range impls {
			if im.offers(BenchCondvar) {
				add(cfgSpec{im: im, bench: BenchCondvar, n: 2})
			}
		}
	}
	return dedupCfgs(cfgs, o), dedupStrings(skipped)
}

func dedupCfgs(cs []cfgSpec, o Options) []cfgSpec {
	seen := map[string]bool{}
	var out []cfgSpec
	for _, c := range cs {
		if k := c.key(o); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

func dedupStrings(v []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Validate checks o without measuring anything; errors are
// *driver.OptionError naming the Options field.
func (o Options) Validate() error {
	_, err := o.resolve()
	return err
}

// wakePlan is a validated run: the configurations, and what was left out.
type wakePlan struct {
	impls    []implSpec
	benches  []string
	cfgs     []cfgSpec
	warnings []string
	notes    []string
}

// resolve validates o and plans its configurations.
func (o Options) resolve() (*wakePlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	benches, _ := o.benches()
	sel, err := catalog().Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	p := &wakePlan{impls: sel.Items, benches: benches, warnings: sel.Warnings, notes: sel.Notes}
	var skipped []string
	p.cfgs, skipped = o.plan(sel.Items, benches)
	for _, s := range skipped {
		p.notes = append(p.notes, "skipped: "+s)
	}
	if len(p.cfgs) == 0 {
		return nil, driver.Bad("Impls", "nothing to run: no chosen implementation has a chosen bench (%s)", strings.Join(benches, ", "))
	}
	return p, nil
}

// roundRobin pins thread i to the i-th allowed CPU modulo their number,
// perf's placement (tools/perf/bench/futex-wake.c:113); nil where the
// affinity cannot be read (the threads then run unpinned).
func roundRobin(n int) []int {
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = cpus[i%len(cpus)]
	}
	return out
}

// Bounds of one run: thread start-up and the sleep check, and the waker's
// loop and the waiters' exit (a lost wakeup beyond them fails the run).
func readyBound(n int) time.Duration { return 10*time.Second + time.Duration(n)*10*time.Millisecond }
func fireBound(n int) time.Duration  { return 10*time.Second + time.Duration(n)*10*time.Millisecond }

// pollInterval is the pause between two polls of the waiters' state.
const pollInterval = 50 * time.Microsecond

// goroutineSettle is how long sync's waiters (goroutines, no thread state
// to read) get after counting in, as herd's settle.
func goroutineSettle(n int) time.Duration {
	return 2*time.Millisecond + time.Duration(n)*20*time.Microsecond
}

// Run runs parkbench wake: perf bench futex's method for the waker's side
// of a wake, per implementation. See doc.go for the method.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
		return p.run(ctx, o, progress)
	}, nil
}

func (p *wakePlan) run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	cfgs := p.cfgs
	exp := &results.Experiment{Name: "wake", Metrics: Metrics, Options: o.asMap(p.impls, p.benches), Warnings: p.warnings, Notes: p.notes}
	exp.Notes = append(exp.Notes,
		"method: perf bench futex (tools/perf/bench/futex-wake.c, futex-wake-parallel.c, futex-requeue.c, futex-hash.c): N waiters pinned round-robin, fresh each run, seen asleep; the waker (unpinned) sleeps --settle, then its wake or requeue calls are timed; the figures are over runs",
		"statistic: waker_mean_ns and waker_sem_pct are perf's \"in %.4f ms (+-%.2f%%)\": the mean and the standard error of the mean as % of the mean (not a standard deviation); median and p99 are over runs (nearest rank); call_* over every call of every run",
		"clock: CLOCK_MONOTONIC in ns (perf: gettimeofday in µs, keeping tv_usec only); the Go waker reads it once per call (about 20 ns each) to time each call")
	if b := lot.CurrentBackend(); b.Name != "" {
		exp.Notes = append(exp.Notes, "lot parks through the "+b.Name+" thread parker")
	}
	if mode, slots := machine.FutexHash(); mode != "" {
		exp.Notes = append(exp.Notes, fmt.Sprintf("futex hash: %s (%d slots when the run started): the hash bench measures that table", mode, slots))
	}
	if roundRobin(1) == nil {
		exp.Notes = append(exp.Notes, "the CPU affinity cannot be read on "+runtime.GOOS+": every thread runs unpinned (perf pins the waiters round-robin)")
	}

	var rt results.Runtime
	var gcCycles uint32
	// Progress counts rounds: each configuration's rounds run round-robin
	// with its group's, so a label per configuration would only show the
	// last of each group.
	steps, step := 0, 0
	for _, c := range cfgs {
		steps += o.rounds(c.bench)
	}
	for start := 0; start < len(cfgs); {
		end := start
		participants := 0
		for end < len(cfgs) && cfgs[end].group == cfgs[start].group {
			participants = max(participants, cfgs[end].n+cfgs[end].m+1)
			end++
		}
		group := cfgs[start:end]
		records := make([]*results.Config, len(group))
		for k, c := range group {
			records[k] = newConfig(c, o)
		}
		env := runenv.Enter(participants)
		pr := probe.Measure(probe.DefaultCPUs())
		fg := probe.StartForeign()
		report := func(c cfgSpec, r int) {
			progress.Report(step, steps, fmt.Sprintf("%s (round %d/%d)", c.key(o), r+1, o.rounds(c.bench)))
			step++
		}
		var err error
		switch group[0].bench {
		case BenchHash:
			err = runHashGroup(ctx, group, o, records, report)
		case BenchCondvar:
			err = runPCGroup(ctx, group, o, records, report)
		default:
			err = runWakerGroup(ctx, group, o, records, report)
		}
		foreign := fg.Stop()
		grt := env.Runtime()
		env.Restore()
		gcCycles += grt.GCCycles
		if grt.GOMAXPROCS > rt.GOMAXPROCS {
			rt = grt
		}
		if err != nil {
			return nil, err
		}
		for _, cfg := range records {
			cfg.Probe = pr
			if foreign != nil && foreign.Fraction >= 0 {
				cfg.Foreign = foreign
				driver.WarnForeign(cfg)
			}
			cfg.Params["gomaxprocs"] = strconv.Itoa(grt.GOMAXPROCS)
			exp.Configs = append(exp.Configs, cfg)
		}
		start = end
	}
	progress.Report(steps, steps, "")
	rt.GCCycles = gcCycles
	rt.SyscallMode = "syscall"
	exp.Runtime = rt
	exp.Claims = Claims(exp.Configs, runtime.NumCPU())
	return exp, nil
}

// newConfig is a configuration's record before its runs.
func newConfig(c cfgSpec, o Options) *results.Config {
	cfg := &results.Config{
		Key:  c.key(o),
		Impl: c.im.name,
		Kind: c.im.kind,
		Params: map[string]string{
			"bench": c.bench,
			"n":     strconv.Itoa(c.n),
			"pid":   strconv.Itoa(os.Getpid()),
		},
	}
	switch c.bench {
	case BenchCondvar:
		cfg.Placement = driver.Unpinned
		return cfg
	case BenchParallel:
		cfg.Params["wakers"] = strconv.Itoa(c.m)
		cfg.Params["per_call"] = strconv.Itoa(c.n / c.m)
	case BenchWake, BenchRequeue:
		cfg.Params["per_call"] = kName(c.k)
	}
	if c.bench != BenchHash {
		cfg.Params["settle"] = o.Settle.String()
	}
	cfg.Placement = "round-robin"
	if roundRobin(1) == nil {
		cfg.Placement = driver.Unpinned
	}
	return cfg
}

// runWakerGroup runs the wake, wake-parallel and requeue configurations of
// one group, run-interleaved, on one waker: a locked thread of its own,
// unpinned, as perf's main thread.
func runWakerGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	runs := make([][]runSample, len(group))
	errc := make(chan error, 1)
	osthread.Go(func() {
		for r := 0; r < o.Runs; r++ {
			for k, c := range group {
				if driver.Interrupted(ctx) {
					errc <- ctx.Err()
					return
				}
				report(c, r)
				s, err := oneRun(ctx, c, o, roundRobin(c.n))
				if err != nil {
					errc <- err
					return
				}
				runs[k] = append(runs[k], s)
			}
		}
		errc <- nil
	})
	if err := <-errc; err != nil {
		return err
	}
	for k, c := range group {
		records[k].Params["sleep_check"] = runs[k][0].sleepCheck
		if err := fillWaker(records[k], c, runs[k]); err != nil {
			return err
		}
	}
	return nil
}

// runSample is what one run measured.
type runSample struct {
	wakerNs    []int64 // the run's waker time; wake-parallel: one per waker
	woken      int     // -1: the API does not say
	calls      int
	perCall    []int64
	sleepCheck string
}

// oneRun is one run: fresh waiters, seen asleep, the settle, the timed
// wake, every waiter gone.
func oneRun(ctx context.Context, c cfgSpec, o Options, cpus []int) (runSample, error) {
	var s runSample
	g, err := c.im.newGroup(c.n, cpus)
	if err != nil {
		return s, fmt.Errorf("wake %s: %w", c.im.name, err)
	}
	s.sleepCheck, err = awaitReady(ctx, g, c.n)
	if err == nil {
		err = g.pinError()
	}
	if err == nil {
		if cs, ok := g.(interface{ settleInFire(time.Duration) }); ok && c.bench != BenchParallel {
			cs.settleInFire(o.Settle)
		} else {
			osthread.Sleep(o.Settle)
		}
		err = ctx.Err()
	}
	if err != nil {
		if !g.close() {
			return s, fmt.Errorf("wake %s N=%d: the waiters could not be released after: %w", c.im.name, c.n, err)
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return s, err
		}
		return s, fmt.Errorf("wake %s N=%d: %w", c.im.name, c.n, err)
	}
	var fr fireResult
	if c.bench == BenchParallel {
		fr, s.wakerNs = fireParallel(g, c.n, c.m)
	} else {
		s.perCall = make([]int64, 4*c.n+16)
		fr = g.fire(c.bench, c.k, s.perCall, fireBound(c.n))
		s.perCall = s.perCall[:min(fr.calls, len(s.perCall))]
		s.wakerNs = []int64{fr.totalNs}
	}
	s.woken, s.calls = fr.done, fr.calls
	left := g.join(fireBound(c.n))
	released := g.close()
	switch {
	case fr.timedOut || !left:
		return s, fmt.Errorf("wake: lost wakeup: %s %s N=%d: not every waiter left its wait within %v of the %s", c.im.name, c.bench, c.n, fireBound(c.n), c.bench)
	case !released:
		return s, fmt.Errorf("wake: %s %s N=%d: waiters still blocked after a forced release", c.im.name, c.bench, c.n)
	case fr.done >= 0 && fr.done != c.n:
		return s, fmt.Errorf("wake correctness failure: %s %s N=%d: the calls reported %d threads, want %d", c.im.name, c.bench, c.n, fr.done, c.n)
	}
	return s, nil
}

// awaitReady waits until every waiter is in its wait: counted in (lot:
// queued on its key), then, where thread state is readable, each thread
// seen sleeping ('S' in /proc/self/task/TID/stat); goroutines (sync) get a
// settle instead. It returns how that was established.
func awaitReady(ctx context.Context, g group, n int) (string, error) {
	deadline := time.Now().Add(readyBound(n))
	for g.ready() < n {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("only %d of %d waiters ready within %v", g.ready(), n, readyBound(n))
		}
		time.Sleep(pollInterval)
	}
	switch {
	case g.threads() && osthread.StateReadable():
		return "count+proc-state-S", osthread.AwaitSleeping(n, g.tid, deadline, pollInterval)
	case g.threads():
		sleepCtx(ctx, goroutineSettle(n))
		return fmt.Sprintf("count+settle-%v (%s: no thread state to read)", goroutineSettle(n), runtime.GOOS), nil
	}
	sleepCtx(ctx, goroutineSettle(n))
	return fmt.Sprintf("count+settle-%v (goroutines: no thread state)", goroutineSettle(n)), nil
}

// sleepCtx sleeps d, or until ctx is cancelled.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// fireParallel is perf's wake-parallel: m waker threads (locked, unpinned)
// released together, each timing its one call that wakes n/m
// (tools/perf/bench/futex-wake-parallel.c:76-95 at commit 20693782766d).
func fireParallel(g group, n, m int) (fireResult, []int64) {
	k := n / m
	var (
		readyN atomic.Int64
		start  = make(chan struct{})
		wg     sync.WaitGroup
		ns     = make([]int64, m)
		woken  = make([]int, m)
	)
	for j := 0; j < m; j++ {
		wg.Add(1)
		osthread.Go(func() {
			defer wg.Done()
			readyN.Add(1)
			<-start
			t0 := nanotime()
			woken[j] = g.wakeCall(k)
			ns[j] = nanotime() - t0
		})
	}
	for readyN.Load() < int64(m) {
		time.Sleep(pollInterval)
	}
	close(start)
	wg.Wait()
	res := fireResult{calls: m}
	for j := range ns {
		res.totalNs = max(res.totalNs, ns[j])
		res.done += woken[j]
	}
	return res, ns
}

// fillWaker turns a configuration's runs into its rounds and summary.
func fillWaker(cfg *results.Config, c cfgSpec, runs []runSample) error {
	hist := driver.NewHist()
	var all, woken, calls []float64
	for _, s := range runs {
		m := map[string]float64{}
		var xs []float64
		for _, v := range s.wakerNs {
			xs = append(xs, float64(v))
			all = append(all, float64(v))
		}
		mean, sem := meanSEM(xs)
		m[mWakerNs] = mean
		// The judged figures carry the run's own value in every round:
		// compare and the gate judge a configuration by its rounds (the
		// runs), and the summary's mean and median are over them.
		m[MWakerMean], m[MWakerMedian] = mean, mean
		if len(xs) > 1 {
			m[MWakerSEM] = sem // wake-parallel's per-run (+-), over its wakers
		}
		m[MPerThread] = mean / float64(c.n)
		m[MCalls] = float64(s.calls)
		calls = append(calls, float64(s.calls))
		if s.woken >= 0 {
			m[MWoken] = float64(s.woken)
			woken = append(woken, float64(s.woken))
		}
		if c.bench == BenchParallel {
			driver.RecordAll(hist, s.wakerNs...)
		} else {
			driver.RecordAll(hist, s.perCall...)
		}
		cfg.Rounds = append(cfg.Rounds, results.Round{Metrics: m})
	}
	mean, sem := meanSEM(all)
	cfg.Summary = map[string]float64{
		MWakerMean:   mean,
		MWakerSEM:    sem,
		MWakerMedian: driver.Median(all),
		MWakerP99:    driver.NearestRank(sorted(all), 0.99),
		MPerThread:   mean / float64(c.n),
		MCalls:       avg(calls),
		MCallMedian:  float64(hist.ValueAtQuantile(50)),
		MCallP99:     float64(hist.ValueAtQuantile(99)),
	}
	if len(woken) == len(runs) {
		cfg.Summary[MWoken] = avg(woken)
	}
	if len(cfg.Rounds) > 0 {
		enc, err := results.EncodeHist(hist)
		if err != nil {
			return fmt.Errorf("wake %s: %w", cfg.Key, err)
		}
		cfg.Rounds[0].Histogram = enc
	}
	return nil
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

func avg(xs []float64) float64 {
	m, _ := meanSEM(xs)
	return m
}

// runHashGroup runs the hash configurations of one thread count,
// round-interleaved.
func runHashGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	vals := make([][]map[string]float64, len(group))
	for k, c := range group {
		cfg := records[k]
		cfg.Params["futexes"] = strconv.Itoa(o.Futexes)
		cfg.Params["hash_time"] = o.HashTime.String()
		if c.im.hash.kernel {
			cfg.Params["table"] = "kernel futex hash"
		} else {
			cfg.Params["table"] = "parking lot buckets"
		}
	}
	for r := 0; r < o.HashRounds; r++ {
		for k, c := range group {
			if driver.Interrupted(ctx) {
				return ctx.Err()
			}
			report(c, r)
			cfg := records[k]
			hr, err := runHash(ctx, c.im.hash, c.n, o.Futexes, o.HashTime, roundRobin(c.n))
			if err != nil {
				return err
			}
			if r == 0 {
				if mode, slots := machine.FutexHash(); mode != "" {
					cfg.Params["futex_hash"] = mode
					cfg.Params["futex_hash_slots"] = strconv.Itoa(slots)
				}
			}
			secs := float64(hr.elapsedNs) / 1e9
			var per []float64
			var total float64
			for _, ops := range hr.ops {
				per = append(per, float64(ops)/secs)
				total += float64(ops) / secs
			}
			mean, sem := meanSEM(per)
			m := map[string]float64{MOpsPerSec: mean, MOpsSEM: sem, MOpsTotal: total, MUnexpected: float64(hr.unexpected), mElapsed: float64(hr.elapsedNs)}
			if mean > 0 {
				m[MNsPerOp] = 1e9 / mean
			}
			for i, v := range per {
				m[fmt.Sprintf("ops_per_sec_thread_%03d", i)] = v
			}
			cfg.Rounds = append(cfg.Rounds, results.Round{Metrics: m})
			vals[k] = append(vals[k], m)
			if hr.unexpected > 0 {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("round %d: %d operations did not fail at once (a wait that slept, or a park that parked)", r+1, hr.unexpected))
			}
		}
	}
	for k, cfg := range records {
		cfg.Summary = driver.MedianOfRounds(vals[k])
		for key := range cfg.Summary {
			if strings.HasPrefix(key, "ops_per_sec_thread_") || key == mElapsed {
				delete(cfg.Summary, key)
			}
		}
	}
	return nil
}

// runPCGroup runs the producer/consumer configurations, round-interleaved.
func runPCGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	bound := 60*time.Second + time.Duration(o.Items)*100*time.Microsecond
	vals := make([][]map[string]float64, len(group))
	for k, c := range group {
		cfg := records[k]
		cfg.Params["items"] = strconv.Itoa(o.Items)
		cfg.Params["capacity"] = strconv.Itoa(o.Capacity)
		cfg.Params["notify_held"] = strconv.FormatBool(o.NotifyHeld)
		if c.im.kind == "goroutine" {
			cfg.Params["switches"] = "process (RUSAGE_SELF): goroutines have no thread of their own"
		} else {
			cfg.Params["switches"] = "the two threads' (RUSAGE_THREAD)"
		}
	}
	for r := 0; r < o.PCRounds; r++ {
		for k, c := range group {
			if driver.Interrupted(ctx) {
				return ctx.Err()
			}
			report(c, r)
			pr, err := c.im.pc(o.Items, o.Capacity, o.NotifyHeld, bound)
			if err != nil {
				return fmt.Errorf("wake condvar %s: %w", c.im.name, err)
			}
			items := float64(o.Items)
			m := map[string]float64{
				MNsPerItem:   float64(pr.elapsedNs) / items,
				MCswPerItem:  float64(pr.switches) / items,
				MWaitPerItem: float64(pr.waits) / items,
			}
			if pr.elapsedNs > 0 {
				m[MItemsPerSec] = items / (float64(pr.elapsedNs) / 1e9)
			}
			records[k].Rounds = append(records[k].Rounds, results.Round{Metrics: m})
			vals[k] = append(vals[k], m)
		}
	}
	for k, cfg := range records {
		cfg.Summary = driver.MedianOfRounds(vals[k])
	}
	return nil
}

func (o Options) asMap(impls []implSpec, benches []string) map[string]string {
	var names []string
	for _, im := range impls {
		names = append(names, im.name)
	}
	ints := func(v []int) string {
		var s []string
		for _, x := range v {
			s = append(s, kName(x))
		}
		return strings.Join(s, ",")
	}
	return map[string]string{
		"impl":         strings.Join(names, ","),
		"bench":        strings.Join(benches, ","),
		"threads":      ints(o.Threads),
		"hash_threads": ints(o.HashThreads),
		"wakes":        ints(o.Wakes),
		"wakers":       ints(o.Wakers),
		"requeues":     ints(o.Requeues),
		"runs":         strconv.Itoa(o.Runs),
		"settle":       o.Settle.String(),
		"futexes":      strconv.Itoa(o.Futexes),
		"hash_time":    o.HashTime.String(),
		"hash_rounds":  strconv.Itoa(o.HashRounds),
		"items":        strconv.Itoa(o.Items),
		"capacity":     strconv.Itoa(o.Capacity),
		"notify_held":  strconv.FormatBool(o.NotifyHeld),
		"pc_rounds":    strconv.Itoa(o.PCRounds),
	}
}
