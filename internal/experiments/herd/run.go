package herd

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// Herd metric names beyond the shared ones.
const (
	mCswExtra    = "ctxsw_participants_extra" // participants' switches beyond one park each
	mCswInvol    = "ctxsw_participants_invol" // the involuntary (preempted) part of ctxsw_participants
	mCswNotifier = "ctxsw_notifier"
	// The phases of ctxsw_participants (Linux): before the notify (the
	// park every waiter pays, plus what its set-up cost), from the notify
	// to holding the mutex (re-parks, yields, preemptions on the way to
	// the lock), and the hold and release (a waiter preempted by the next
	// one it woke). Each with its involuntary part.
	mCswSetup        = "ctxsw_parts_before_notify"
	mCswWake         = "ctxsw_parts_to_lock"
	mCswRelease      = "ctxsw_parts_release"
	mCswSetupInvol   = "ctxsw_parts_before_notify_invol"
	mCswWakeInvol    = "ctxsw_parts_to_lock_invol"
	mCswReleaseInvol = "ctxsw_parts_release_invol"
	mHandoff         = "handoff_ns"     // median gap between one release and the next hold
	mHandoffMax      = "handoff_max_ns" // largest such gap
	mHandoffMean     = "handoff_mean_ns"
	// mSerial is total / (N x hold + (N-1) x mean handoff + first) of
	// one repeat: 1 when nothing but the nominal holds and the measured
	// handoffs make up the total; above 1 by the holds' stretch (a waiter
	// preempted while holding).
	mSerial      = "serial_ratio"
	mHoldMean    = "hold_mean_ns" // mean measured hold
	mSpurious    = "spurious_wakeups"
	mNotifierCPU = "notifier_cpu"
	mFirstCPU    = "first_cpu"
	mFirstIsCPU  = "first_same_cpu" // 1 when the first waiter ran on the notifier's CPU
)

// minMaxMetrics are the metrics that get _min and _max summary variants.
var minMaxMetrics = []string{results.MFirstNs, results.MTotalNs, results.MCtxSwProc, results.MCtxSwParts, mHandoff}

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
		raws := make([][]*repeatResult, len(ims))
		procs := make([]int, len(ims))
		pr := probe.Measure(probe.DefaultCPUs())
		env := runenv.Enter(g.n + 2)
		threadProcs := runtime.GOMAXPROCS(0)
		fg := probe.StartForeign()
		var runErr error
	repeats:
		for r := 0; r < o.Repeats; r++ {
			for k, im := range ims {
				if driver.Interrupted(ctx) {
					runErr = ctx.Err()
					break repeats
				}
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
					runErr = err
					break repeats
				}
				if err := checkRaw(raw, im.name, g.n); err != nil {
					runErr = err
					break repeats
				}
				raws[k] = append(raws[k], raw)
			}
		}
		foreign := fg.Stop()
		tally.End(env)
		if runErr != nil {
			return nil, runErr
		}
		for k, im := range ims {
			c, err := buildConfig(im, g, o, raws[k], procs[k])
			if err != nil {
				return nil, err
			}
			c.Probe = pr
			driver.SetForeign(c, foreign)
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

// checkRaw verifies one repeat's correctness: each waiter left its
// wait exactly once, and no two holds overlapped.
func checkRaw(raw *repeatResult, impl string, n int) error {
	if len(raw.waiters) != n {
		return fmt.Errorf("herd correctness failure: %s N=%d: %d waiter records", impl, n, len(raw.waiters))
	}
	type span struct{ a, b int64 }
	spans := make([]span, n)
	for i, w := range raw.waiters {
		if w.acquisitions != 1 {
			return fmt.Errorf("herd correctness failure: %s N=%d: waiter %d returned from its wait %d times, want exactly once", impl, n, i, w.acquisitions)
		}
		if w.rel < w.acq {
			return fmt.Errorf("herd correctness failure: %s N=%d: waiter %d's hold ends before it starts", impl, n, i)
		}
		spans[i] = span{w.acq, w.rel}
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	for i := 1; i < n; i++ {
		if spans[i].a < spans[i-1].b {
			return fmt.Errorf("herd correctness failure: %s N=%d: two waiters held the mutex at once (a hold started %d ns before the previous one ended)",
				impl, n, spans[i-1].b-spans[i].a)
		}
	}
	return nil
}

// roundOf turns one repeat into a Round.
func roundOf(raw *repeatResult, n int, hold time.Duration) results.Round {
	m := map[string]float64{}
	first, last := int64(1<<62), int64(-1<<62)
	firstCPU := -1
	var parts, invol int64
	partsKnown := true
	var holds int64
	var spurious int64
	var ph [6]int64 // setup, wake, release; then their involuntary parts
	phasesKnown := true
	type span struct{ a, b int64 }
	spans := make([]span, 0, n)
	for _, w := range raw.waiters {
		if w.acq < first {
			first = w.acq
			firstCPU = w.cpu
		}
		last = max(last, w.rel)
		if w.csw < 0 {
			partsKnown = false
		}
		parts += w.csw
		invol += w.invol
		if w.cswNotify < 0 || w.cswAcq < 0 || w.csw < 0 {
			phasesKnown = false
		} else {
			ph[0] += w.cswNotify
			ph[1] += w.cswAcq - w.cswNotify
			ph[2] += w.csw - w.cswAcq
			ph[3] += w.involNotify
			ph[4] += w.involAcq - w.involNotify
			ph[5] += w.invol - w.involAcq
		}
		holds += w.rel - w.acq
		spurious += w.waitReturns - 1
		spans = append(spans, span{w.acq, w.rel})
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].a < spans[j].a })
	var gaps []float64
	for i := 1; i < len(spans); i++ {
		gaps = append(gaps, float64(spans[i].a-spans[i-1].b))
	}
	m[results.MReturn] = float64(raw.out.ret)
	m[results.MFirstNs] = float64(first - raw.t0)
	m[results.MTotalNs] = float64(last - raw.t0)
	m[results.MCtxSwProc] = float64(raw.procCsw)
	if partsKnown {
		m[results.MCtxSwParts] = float64(parts)
		m[mCswExtra] = float64(parts - int64(n))
		m[mCswInvol] = float64(invol)
	}
	if partsKnown && phasesKnown && len(raw.waiters) > 0 {
		for i, k := range []string{mCswSetup, mCswWake, mCswRelease, mCswSetupInvol, mCswWakeInvol, mCswReleaseInvol} {
			m[k] = float64(ph[i])
		}
	}
	if raw.notifierCsw >= 0 {
		m[mCswNotifier] = float64(raw.notifierCsw)
	}
	if raw.out.unparked >= 0 {
		m[results.MUnparked] = float64(raw.out.unparked)
	}
	if raw.out.requeued >= 0 {
		m[results.MRequeued] = float64(raw.out.requeued)
	}
	if len(gaps) > 0 {
		m[mHandoff] = stats.Median(gaps)
		m[mHandoffMax] = slices.Max(gaps)
		sum := 0.0
		for _, g := range gaps {
			sum += g
		}
		m[mHandoffMean] = sum / float64(len(gaps))
	} else {
		m[mHandoffMean] = 0
		m[mHandoff] = 0
		m[mHandoffMax] = 0
	}
	m[mHoldMean] = float64(holds) / float64(n)
	if expect := float64(n)*float64(hold) + float64(n-1)*m[mHandoffMean] + m[results.MFirstNs]; expect > 0 {
		m[mSerial] = m[results.MTotalNs] / expect
	}
	m[mSpurious] = float64(spurious)
	// The CPU a thread ran on is -1 where it cannot be read (every OS but
	// Linux): then the metric is absent, never negative (results.Sane).
	if raw.notifierCPU >= 0 {
		m[mNotifierCPU] = float64(raw.notifierCPU)
	}
	if firstCPU >= 0 {
		m[mFirstCPU] = float64(firstCPU)
	}
	if raw.notifierCPU >= 0 && firstCPU >= 0 {
		if raw.notifierCPU == firstCPU {
			m[mFirstIsCPU] = 1
		} else {
			m[mFirstIsCPU] = 0
		}
	}
	m["waiters"] = float64(n)
	if raw.trace != nil {
		raw.trace.Metrics(m, raw.traceLost)
	}
	return results.Round{Metrics: m}
}

// buildConfig builds one configuration from its repeats.
func buildConfig(im implSpec, g configGroup, o Options, raws []*repeatResult, procs int) (*results.Config, error) {
	nm := ModeAll
	if g.oneLoop {
		nm = ModeOneLoop
	}
	threads := "goroutines locked to their OS threads (osthread.Go)"
	switch {
	case im.goroutines:
		threads = "plain goroutines (goroutine level)"
	case im.c:
		threads = "C threads (pthread_create), no Go runtime in the loop"
	}
	c := &results.Config{
		Key:       configKey(im.label(), g),
		Impl:      im.name,
		Kind:      im.kind,
		Placement: g.placement,
		Params: map[string]string{
			"n":          strconv.Itoa(g.n),
			"hold":       o.Hold.String(),
			"notify":     nm,
			"lock_held":  strconv.FormatBool(g.lockHeld),
			"gomaxprocs": strconv.Itoa(procs),
			"threads":    threads,
			// sync is goroutines whatever was asked (as always).
			"participants": participantsOf(im),
		},
	}
	if strings.HasPrefix(im.name, "lot") {
		c.Params["parker"] = lot.CurrentBackend().Name
	}
	if len(raws) > 0 {
		c.Params["sleep_check"] = raws[0].sleepCheck
	}
	flagged, lost, why := 0, uint64(0), ""
	for _, raw := range raws {
		if raw.trace != nil {
			flagged += raw.trace.Flagged
			lost += raw.traceLost
			if why == "" {
				why = raw.trace.Why
			}
		}
	}
	if flagged > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("anatomy: %d of %d traced waiters not placed by the trace (e.g. %s): counted apart, not as \"did not sleep again\"", flagged, g.n*len(raws), why))
	}
	if lost > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("anatomy: the kernel dropped %d trace records (rings full): the waiters around them are not placed", lost))
	}
	hist := hdrhistogram.New(1, int64(10*time.Minute), 3)
	for _, raw := range raws {
		r := roundOf(raw, g.n, o.Hold)
		c.Rounds = append(c.Rounds, r)
		driver.RecordAll(hist, int64(r.Metrics[results.MFirstNs]))
	}
	if len(c.Rounds) > 0 {
		enc, err := results.EncodeHist(hist)
		if err != nil {
			return nil, fmt.Errorf("herd %s: %w", c.Key, err)
		}
		c.Rounds[0].Histogram = enc
	}
	c.Summary = summarize(c.Rounds)
	return c, nil
}

// summarize is the median over rounds of every metric, plus _min and
// _max of the main ones.
func summarize(rounds []results.Round) map[string]float64 {
	var ms []map[string]float64
	for _, r := range rounds {
		ms = append(ms, r.Metrics)
	}
	s := driver.MedianOfRounds(ms)
	vals := driver.ByMetric(ms)
	for _, k := range minMaxMetrics {
		if v, ok := vals[k]; ok && len(v) > 0 {
			s[k+"_min"] = slices.Min(v)
			s[k+"_max"] = slices.Max(v)
		}
	}
	return s
}
