package lock

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// Summary keys (the median over repeats of each repeat's figure).
const (
	MTotalMops   = "total_mops"            // all threads' acquisitions per µs
	MKhzMedian   = "khz_per_thread_median" // mutex.rs's median: sorted[len/2]
	MKhzAvg      = "khz_per_thread_avg"
	MKhzStddev   = "khz_per_thread_stddev" // population standard deviation, as mutex.rs
	MJain        = "jain_index"            // (Σx)² / (n Σx²) over per-thread counts
	MMinMax      = "min_max_ratio"         // smallest / largest per-thread count
	MWaitP99     = "wait_p99_ns"           // of the sampled waits
	MWaitMax     = "wait_max_ns"
	MCPUBusy     = "cpu_busy_cores"     // process CPU time / wall time
	MCPUPerAcq   = "cpu_ns_per_acquire" // (CPU - calibrated work) / acquisitions
	MUncontended = "uncontended_ns"     // one thread's lock+unlock pair
	// MHarness is the harness floor of a Go row: ns per iteration of the
	// same measured loop on one thread with an empty lock (Lock and
	// Unlock return at once) and the row's work; MOverHarness is the
	// row's wall ns per acquisition (1000 / total Mops) less what an empty
	// lock would give at the row's thread count: the floor divided by the
	// threads that can run at once, min(threads, CPUs) (the loops of an
	// empty lock share nothing, so they scale to the CPUs; with work
	// outside the lock the one-thread floor alone read 130 ns below zero
	// at 2 threads).
	MHarness     = "harness_ns"
	MOverHarness = "over_harness_ns"
	// Round-only metrics.
	mWaitMedian = "wait_median_ns"
	mAcqs       = "acquisitions"
	mWall       = "wall_ns"
	mThreadKhz  = "khz_thread_" // + thread index, %03d
)

// SummaryKeys are the summary keys of every lock configuration.
var SummaryKeys = []string{MTotalMops, MOverHarness, MKhzMedian, MKhzAvg, MKhzStddev, MJain, MMinMax, MWaitP99, MWaitMax, MCPUBusy, MCPUPerAcq, MUncontended, MHarness}

// group is the configurations that share everything but the
// implementation; they run repeat-interleaved.
type group struct {
	threads, locks      int
	workIn, workBetween time.Duration
	procs               int // GOMAXPROCS (0: the run's)
}

// calib is the work unit's cost, per language.
type calib struct {
	goIn, goBetween, c float64 // ns per iteration
}

func iters(d time.Duration, nsPerIter float64) int {
	if d <= 0 || nsPerIter <= 0 {
		return 0
	}
	return max(1, int(math.Round(float64(d)/nsPerIter)))
}

// calibrate measures each work unit's ns per iteration: the fastest of 30
// batches of 50 000 iterations. On a loaded machine a batch that was
// preempted is slower, never faster, so the minimum is the unit's cost.
func calibrate() calib {
	const n = 50_000
	var cal calib
	p := new(padded[struct{}])
	cal.goIn = fastest(30, n, func(n int) { calibSink += calibIn(&p.value, calibSink, n) })
	cal.goBetween = fastest(30, n, func(n int) { calibSink += calibBetween(calibSink, calibSink, n) })
	if cref.LockAvailable() == nil {
		cal.c = minOf(30, func() float64 { return cref.LockWorkNs(n) })
	}
	return cal
}

// calibSink keeps the calibrated work live and its inputs unknown to the
// compiler.
var calibSink float64

//go:noinline
func calibIn(p *float64, v float64, n int) float64 { return work(p, v, n) }

//go:noinline
func calibBetween(l, v float64, n int) float64 { _, v = workLocal(l, v, n); return v }

// fastest runs f(n) batches times and returns the fastest batch's ns per
// unit of n.
func fastest(batches, n int, f func(n int)) float64 {
	best := math.Inf(1)
	for i := 0; i < batches; i++ {
		t0 := monoclock.Nanotime()
		f(n)
		best = min(best, float64(monoclock.Nanotime()-t0)/float64(n))
	}
	return best
}

// minOf is the smallest of batches calls of f.
func minOf(batches int, f func() float64) float64 {
	best := math.Inf(1)
	for i := 0; i < batches; i++ {
		best = min(best, f())
	}
	return best
}

// atomicAddNs is one uncontended atomic add in ns, beside which the
// uncontended lock+unlock pairs are read.
func atomicAddNs() float64 {
	var x atomic.Int64
	return fastest(30, 20_000, func(n int) {
		for i := 0; i < n; i++ {
			x.Add(1)
		}
	})
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

// Run measures every implementation on every group of the sweep, repeats
// interleaved (repeat 1 of every implementation, then repeat 2, ...), and
// evaluates the claims. Experiments never print; progress may be nil.
//
// Runtime: GOMAXPROCS is max(threads)+2 (at least NumCPU) so that no
// locked thread ever waits for a P, and the GC is off, for the whole run
// (runenv); both are restored on return, also when ctx is cancelled. No
// thread is pinned (mutex.rs pins nothing), so there is no affinity to
// restore. A cancelled run returns ctx.Err() and no result.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

func (p *mutexPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, impls := p.o, p.Items
	groups := o.groups()
	pattern := o.pattern()
	hold := o.holdSleep()

	cal := calibrate()
	unc := make([][]float64, len(impls))
	var atomicNs, cgoNs []float64
	for r := 0; r < o.Repeats; r++ {
		if driver.Interrupted(ctx) {
			return nil, ctx.Err()
		}
		atomicNs = append(atomicNs, atomicAddNs())
		if cref.LockAvailable() == nil {
			cgoNs = append(cgoNs, minOf(30, func() float64 { return cref.CgoCallNs(20_000) }))
		}
		for k, im := range impls {
			unc[k] = append(unc[k], im.uncontended())
		}
	}

	maxThreads := slices.Max(o.Threads)
	if o.Skew {
		maxThreads = 2
	}
	env := runenv.Enter(maxThreads)
	defer env.Restore()

	exp := &results.Experiment{Name: "lock", Metrics: Metrics, Options: o.asMap(impls), Warnings: p.Warnings}
	exp.Options["work_unit_go_in_ns"] = strconv.FormatFloat(cal.goIn, 'f', 3, 64)
	exp.Options["work_unit_go_between_ns"] = strconv.FormatFloat(cal.goBetween, 'f', 3, 64)
	if cal.c > 0 {
		exp.Options["work_unit_c_ns"] = strconv.FormatFloat(cal.c, 'f', 3, 64)
	}
	// atomicNs has one figure per repeat (Repeats >= 1), never none.
	exp.Options["atomic_add_ns"] = strconv.FormatFloat(stats.Median(atomicNs), 'f', 2, 64)
	if len(cgoNs) > 0 {
		exp.Options["cgo_call_ns"] = strconv.FormatFloat(stats.Median(cgoNs), 'f', 2, 64)
	}
	exp.Notes = append(exp.Notes,
		fmt.Sprintf("method: parking_lot benchmark/src/bin/mutex.rs: threads start together and loop { lock; work-in; unlock; work-between } for %v; per-thread acquisitions/s (avg, median = sorted[n/2], population stddev) per repeat, the summary is the median over %d repeats", o.Duration, o.Repeats),
		fmt.Sprintf("work unit: mutex.rs's dependent f64 add+multiply, calibrated here: Go %.2f ns inside the lock, %.2f ns between, C %.2f ns per iteration; --work-in/--work-between are converted to iterations per language", cal.goIn, cal.goBetween, cal.c),
		fmt.Sprintf("waits are sampled: 1 acquisition in %d (lockskew: every one) is timed with two monotonic clock reads, so the measured loop stays cheap; wait_* and rounds[].histogram are those samples", SampleEvery),
		fmt.Sprintf("uncontended: one thread's lock+unlock pair; an atomic add costs %s ns here; pthread pays two cgo crossings of %s ns each on top of pthread_mutex_lock/unlock", exp.Options["atomic_add_ns"], exp.Options["cgo_call_ns"]),
		"cpu_busy_cores = process CPU time (RUSAGE_SELF, every thread) / wall time; cpu_ns_per_acquire = (CPU - acquisitions x calibrated work) / acquisitions")
	if b := lot.CurrentBackend(); b.Name != "" {
		exp.Notes = append(exp.Notes, "lot and lot-fair park through the "+b.Name+" thread parker")
	}

	harness := harnessFloors(ctx, o, groups, pattern, cal)
	if driver.Interrupted(ctx) {
		return nil, ctx.Err()
	}

	seed := uint64(time.Now().UnixNano())
	key := func(impl string, g group) string { return key(impl, g, o) }
	err := sweep(ctx, exp, env, groups, impls, o.Repeats, progress, key,
		func(im impl, g group, seq int) (*raw, error) {
			sp := spec{threads: g.threads, locks: g.locks, pattern: pattern, holdSleep: hold, duration: o.Duration, seed: seed + uint64(seq)}
			if im.c {
				sp.workIn, sp.workBetween = iters(g.workIn, cal.c), iters(g.workBetween, cal.c)
			} else {
				sp.workIn, sp.workBetween = iters(g.workIn, cal.goIn), iters(g.workBetween, cal.goBetween)
			}
			if pattern != cref.PatternLoop {
				sp.workIn = 0
			}
			sp.goroutines = im.goroutines
			var r *raw
			_, err := driver.WithProcs(g.procs, func() (err error) {
				r, err = im.run(ctx, sp)
				return err
			})
			return r, err
		},
		func(im impl, g group, raws []*raw) (*results.Config, error) {
			k := slices.IndexFunc(impls, func(x impl) bool { return x.label() == im.label() })
			floor := harness[floorKey(g)]
			if im.c {
				floor = nil // the C loop is not Go's harness
			}
			c, err := config(im, g, o, cal, raws, unc[k], floor)
			if err == nil && im.name == "pthread" && len(cgoNs) > 0 {
				c.Params["cgo_call_ns"] = exp.Options["cgo_call_ns"]
			}
			return c, err
		})
	if err != nil {
		return nil, err
	}
	// Locked threads only if some configuration ran on them.
	exp.Runtime.LockOSThread = slices.ContainsFunc(impls, func(im impl) bool { return !im.goroutines })
	exp.Notes = append(exp.Notes, harnessNotes(exp.Configs)...)
	if pattern == cref.PatternLoop && slices.ContainsFunc(groups, bareLoop) {
		exp.Notes = append(exp.Notes, fmt.Sprintf("mutual exclusion: a row with work (Go or C loop) counts every acquisition under the lock, beside the value the work writes there (mutex.rs's *shared_value += value), and a run whose threads' counts differ from the lock's fails; the zero-work rows (in=0s/between=0s, one lock) count only the 1 acquisition in %d whose wait is timed, so they check exclusion only between those (a store under the lock in every iteration would be work mutex.rs does not do, in rows that measure the lock's two atomics alone); mutex.rs checks none, lot's tests and internal/stress are its exclusion evidence", SampleEvery))
	}
	exp.Claims = Claims(exp.Configs, runtime.NumCPU())
	return exp, nil
}

// bareLoop says whether g's rows check exclusion on their timed
// acquisitions only: one lock, no work (the Go rows run loopBare; the C loop
// follows the same rule, internal/cref/lock.c).
func bareLoop(g group) bool { return g.locks == 1 && g.workIn == 0 && g.workBetween == 0 }

// floorKey is what the harness floor depends on: the work and the number
// of locks (one thread always).
func floorKey(g group) group {
	return group{threads: 1, locks: g.locks, workIn: g.workIn, workBetween: g.workBetween}
}

// harnessDuration bounds one floor window: the floor is a tight loop on one
// thread, steady within a tenth of a second.
const harnessDuration = 100 * time.Millisecond

// harnessFloors measures the harness floor of every distinct floorKey of
// the groups: per repeat, one window of the measured loop (loop, the same
// function every Go lock runs in) on one thread over emptyLock, with the
// group's work; ns per iteration, the median over the repeats. Patterns
// other than the work loop sleep inside the loop, so they have no floor.
func harnessFloors(ctx context.Context, o Options, groups []group, pattern cref.LockPattern, cal calib) map[group][]float64 {
	out := map[group][]float64{}
	if pattern != cref.PatternLoop {
		return out
	}
	d := min(o.Duration, harnessDuration)
	for _, g := range groups {
		fk := floorKey(g)
		if _, ok := out[fk]; ok {
			continue
		}
		var ns []float64
		for r := 0; r < o.Repeats; r++ {
			if driver.Interrupted(ctx) {
				return out
			}
			sp := spec{threads: 1, locks: g.locks, pattern: pattern, duration: d,
				workIn: iters(g.workIn, cal.goIn), workBetween: iters(g.workBetween, cal.goBetween)}
			rw, err := goRun[emptyLock](ctx, sp, nil, nil)
			if err != nil || rw.counts[0] == 0 {
				continue
			}
			ns = append(ns, float64(rw.wallNs)/float64(rw.counts[0]))
		}
		out[fk] = ns
	}
	return out
}

// harnessFraction is the share of the fastest lock's acquisition above
// which the harness is said to weigh on the figures (a fifth).
const harnessFraction = 0.2

// harnessNotes says what the harness floor is and, when it costs more than
// a fifth of the fastest Go lock's acquisition above it, that the rows
// should be read above the floor.
func harnessNotes(configs []*results.Config) []string {
	floor, fastest := -1.0, -1.0
	var fastestKey string
	for _, c := range configs {
		h, ok := c.Summary[MHarness]
		if !ok {
			continue
		}
		if floor < 0 || h < floor {
			floor = h
		}
		if o, ok := c.Summary[MOverHarness]; ok && o > 0 && (fastest < 0 || o < fastest) {
			fastest, fastestKey = o, c.Key
		}
	}
	if floor < 0 {
		return nil
	}
	notes := []string{fmt.Sprintf("harness floor: the same loop on one thread with an empty lock (Lock and Unlock return at once) costs %.2f ns per iteration with no work (per work setting: harness_ns); each Go row's over harness is its wall ns per acquisition (1000 / total Mops) less its floor over min(threads, CPUs)", floor)}
	if fastest > 0 && floor > harnessFraction*fastest {
		notes = append(notes, fmt.Sprintf("the harness costs more than a fifth of the fastest lock's acquisition (%.2f ns against %.2f ns above it, %s): total Mops counts the harness too; read over harness", floor, fastest, fastestKey))
	}
	return notes
}

// sweep runs every implementation on every group, repeats interleaved
// (repeat 1 of every implementation, then repeat 2, ...), so that drift in
// the machine's load spreads evenly over them, with one foreign-load window
// per group. one does one timed run (seq numbers the runs); build turns an
// implementation's runs of one group into its configuration. The
// configurations and the runtime they ran under (env's) go into exp.
func sweep[G, R any](ctx context.Context, exp *results.Experiment, env *runenv.Env, groups []G, impls []impl, repeats int, progress driver.Progress,
	key func(string, G) string, one func(im impl, g G, seq int) (R, error),
	build func(im impl, g G, raws []R) (*results.Config, error)) error {
	total := len(groups) * repeats * len(impls)
	done := 0
	for _, g := range groups {
		raws := make([][]R, len(impls))
		fg := probe.StartForeign()
		for r := 0; r < repeats; r++ {
			for k, im := range impls {
				if driver.Interrupted(ctx) {
					return ctx.Err()
				}
				progress.Report(done, total, key(im.label(), g))
				raw, err := one(im, g, done)
				done++
				if err != nil {
					return fmt.Errorf("%s: %w", key(im.label(), g), err)
				}
				raws[k] = append(raws[k], raw)
			}
		}
		foreign := fg.Stop()
		for k, im := range impls {
			c, err := build(im, g, raws[k])
			if err != nil {
				return err
			}
			driver.RecordForeignLoad(c, foreign)
			exp.Configs = append(exp.Configs, c)
		}
	}
	progress.Report(total, total, "")
	exp.Runtime = env.Runtime()
	exp.Runtime.SyscallMode = "syscall"
	return nil
}

func (o Options) pattern() cref.LockPattern {
	switch {
	case o.Skew:
		return cref.PatternSkew
	case o.HoldSleep > 0:
		return cref.PatternHoldSleep
	}
	return cref.PatternLoop
}

func (o Options) holdSleep() time.Duration {
	if o.Skew {
		return o.SkewSleep
	}
	return o.HoldSleep
}

// groups is the sweep: threads x work-in x work-between x locks. The
// hold-sleep pattern has no work-in; lockskew is two threads, no work.
func (o Options) groups() []group {
	ins, threads, betweens := o.WorkIn, o.Threads, o.WorkBetween
	if o.pattern() != cref.PatternLoop {
		ins = []time.Duration{0}
	}
	if o.Skew {
		threads, betweens = []int{2}, []time.Duration{0}
	}
	var out []group
	for _, k := range o.Locks {
		for _, in := range driver.Distinct(ins) {
			for _, bt := range driver.Distinct(betweens) {
				for _, n := range driver.Distinct(threads) {
					for _, pr := range driver.ProcsOrDefault(o.GOMAXPROCS) {
						out = append(out, group{threads: n, locks: k, workIn: in, workBetween: bt, procs: pr})
					}
				}
			}
		}
	}
	return out
}

// key is a configuration's key: impl/in=D/between=D/locks=K[/pattern]/t=N
// (threads last, so that a line per implementation reads along it).
func key(impl string, g group, o Options) string {
	k := fmt.Sprintf("%s/in=%v/between=%v/locks=%d", impl, g.workIn, g.workBetween, g.locks)
	switch o.pattern() {
	case cref.PatternHoldSleep:
		k = fmt.Sprintf("%s/between=%v/locks=%d/hold-sleep=%v", impl, g.workBetween, g.locks, o.HoldSleep)
	case cref.PatternSkew:
		k = fmt.Sprintf("%s/lockskew=%v", impl, o.SkewSleep)
	}
	if len(o.GOMAXPROCS) > 1 {
		k += fmt.Sprintf("/procs=%d", g.procs)
	}
	return fmt.Sprintf("%s/t=%d", k, g.threads)
}

// asMap is the options' echo (their opt tags) with what the plan decided:
// the implementations, the pattern and what it replaces.
func (o Options) asMap(impls []impl) map[string]string {
	m := driver.Echo(o)
	m["impl"] = implNames(impls)
	m["sample_every"] = strconv.Itoa(SampleEvery)
	m["pattern"] = o.patternName()
	if o.HoldSleep > 0 {
		m["work-in"] = "none (sleeps while holding)"
	}
	if o.Skew {
		m["lockskew_sleep"] = o.SkewSleep.String()
		m["threads"], m["work-in"], m["work-between"] = "2", "none (sleeps while holding)", "none"
	}
	return m
}

// patternName is the loop's pattern as the options and params read it.
func (o Options) patternName() string {
	return [...]string{"loop", "hold-sleep", "lockskew"}[o.pattern()]
}

func implNames(impls []impl) string {
	var names []string
	for _, im := range impls {
		names = append(names, im.label())
	}
	return strings.Join(names, ",")
}

// config builds one configuration from its repeats.
func config(im impl, g group, o Options, cal calib, raws []*raw, unc []float64, floor []float64) (*results.Config, error) {
	inNs, betweenNs, threads := cal.goIn, cal.goBetween, "goroutines locked to their OS threads (osthread.Go)"
	if im.goroutines {
		threads = "plain goroutines (not locked, not pinned)"
	}
	if im.c {
		inNs, betweenNs, threads = cal.c, cal.c, "C threads (pthread_create), no Go runtime in the loop"
	}
	win, wbt := iters(g.workIn, inNs), iters(g.workBetween, betweenNs)
	if o.pattern() != cref.PatternLoop {
		win = 0
	}
	c := &results.Config{
		Key:  key(im.label(), g, o),
		Impl: im.name,
		Kind: im.kind,
		Params: map[string]string{
			"threads":            strconv.Itoa(g.threads),
			"locks":              strconv.Itoa(g.locks),
			"work_in":            g.workIn.String(),
			"work_in_iters":      strconv.Itoa(win),
			"work_between":       g.workBetween.String(),
			"work_between_iters": strconv.Itoa(wbt),
			"work_unit_ns":       strconv.FormatFloat(inNs, 'f', 3, 64),
			"participants":       participants(im),
			"gomaxprocs":         strconv.Itoa(procsOf(g)),
			"thread_kind":        threads,
			"pattern":            o.patternName(),
		},
	}
	if h := o.holdSleep(); h > 0 {
		c.Params["hold_sleep"] = h.String()
	}
	if im.loop != nil {
		c.Params[ext.LoopParam] = im.loop(o.pattern(), g.locks)
	}
	if strings.HasPrefix(im.name, "lot") {
		c.Params["parker"] = lot.CurrentBackend().Name
		if im.parker.Name != "" {
			c.Params["parker"] = im.parker.Name
		}
	}
	// CPU the calibrated work accounts for, per acquisition.
	workNs := float64(win)*inNs + float64(wbt)*betweenNs
	for i, rw := range raws {
		if starved := slices.Index(rw.counts, 0); starved >= 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("repeat %d: thread %d never acquired the lock (starved, or never scheduled on a loaded machine)", i+1, starved))
		}
		m := roundMetrics(rw, workNs)
		m[MUncontended] = unc[min(i, len(unc)-1)]
		if len(floor) > 0 && m[MTotalMops] > 0 {
			h := floor[min(i, len(floor)-1)]
			m[MHarness] = h
			m[MOverHarness] = 1e3/m[MTotalMops] - h/float64(min(g.threads, runtime.NumCPU()))
		}
		r := results.Round{Metrics: m}
		enc, err := results.EncodeHist(rw.waits)
		if err != nil {
			return nil, err
		}
		r.Histogram = enc
		c.Rounds = append(c.Rounds, r)
	}
	c.Summary = summarize(c.Rounds, SummaryKeys)
	return c, nil
}

// roundMetrics computes one repeat's figures, as mutex.rs prints them
// (run_benchmark_iterations) plus fairness and CPU.
func roundMetrics(rw *raw, workNs float64) map[string]float64 {
	m := map[string]float64{}
	secs := float64(rw.wallNs) / 1e9
	n := len(rw.counts)
	khz := make([]float64, n)
	var sum, sumSq float64
	var total int64
	for i, c := range rw.counts {
		khz[i] = float64(c) / secs / 1e3
		sum += float64(c)
		sumSq += float64(c) * float64(c)
		total += c
		m[fmt.Sprintf("%s%03d", mThreadKhz, i)] = khz[i]
	}
	avg := 0.0
	for _, k := range khz {
		avg += k
	}
	avg /= float64(n)
	variance := 0.0
	for _, k := range khz {
		variance += (k - avg) * (k - avg)
	}
	variance /= float64(n)
	sorted := slices.Clone(khz)
	slices.Sort(sorted)
	m[MTotalMops] = float64(total) / secs / 1e6
	m[MKhzAvg] = avg
	m[MKhzMedian] = sorted[n/2]
	m[MKhzStddev] = math.Sqrt(variance)
	// With no acquisitions at all both are 0 (nothing was shared).
	m[MJain], m[MMinMax] = 0, 0
	if sumSq > 0 {
		m[MJain] = sum * sum / (float64(n) * sumSq)
		m[MMinMax] = sorted[0] / sorted[n-1]
	}
	if rw.waits.TotalCount() > 0 {
		m[mWaitMedian] = float64(rw.waits.ValueAtQuantile(50))
		m[MWaitP99] = float64(rw.waits.ValueAtQuantile(99))
		m[MWaitMax] = float64(rw.waits.Max())
	}
	if rw.cpuNs >= 0 && rw.wallNs > 0 {
		m[MCPUBusy] = float64(rw.cpuNs) / float64(rw.wallNs)
		if total > 0 {
			m[MCPUPerAcq] = (float64(rw.cpuNs) - float64(total)*workNs) / float64(total)
		}
	}
	m[mAcqs] = float64(total)
	m[mWall] = float64(rw.wallNs)
	return m
}

// summarize is a configuration's summary: for each of keys, the median of
// its values over the rounds that have it.
func summarize(rounds []results.Round, keys []string) map[string]float64 {
	out := map[string]float64{}
	for _, k := range keys {
		var v []float64
		for _, r := range rounds {
			if x, ok := r.Metrics[k]; ok {
				v = append(v, x)
			}
		}
		if len(v) > 0 {
			out[k] = stats.Median(v)
		}
	}
	return out
}
