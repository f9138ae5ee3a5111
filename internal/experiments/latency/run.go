package latency

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/pingpong"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/schedacct"
	"github.com/parkbench/parkbench/internal/stats"
)

// PlanLatency validates o (an *driver.OptionError for bad input) and
// returns the run it describes, measuring nothing yet. RunLatency runs E12:
// for each implementation x placement x gap, a ping-pong between two
// participant threads, warm-up then Rounds rounds of Iterations round
// trips, and evaluates the study's claims. It validates every option
// before measuring (PlanLatency), holds the runtime in runenv's state for
// the whole run and restores it on return, also on cancellation (ctx is
// checked between rounds; it then returns ctx.Err()).
var PlanLatency, RunLatency = driver.Planned(planLatency)

func (p *latencyPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, plan, lotBackend := p.o, p.configs, p.lot
	exp := &results.Experiment{Name: "latency", Metrics: LatencyMetrics, Options: driver.Echo(o), Warnings: p.warnings, Notes: p.notes}
	var goroutineLevel []string
	for _, c := range plan {
		if c.impl.kind == "goroutine" && !slices.Contains(goroutineLevel, c.impl.name) {
			goroutineLevel = append(goroutineLevel, c.impl.name)
		}
	}
	if len(goroutineLevel) > 0 {
		exp.Notes = append(exp.Notes, strings.Join(goroutineLevel, ", ")+": goroutine-level (kind goroutine): they park the goroutine in the Go scheduler, which then puts the locked thread to sleep; not an OS thread parker, and left out of the same-order claim")
	}
	if hasImpl(plan, parkers.NameSpin, parkers.NameGeneric) && hasImpl(plan, ImplCSpin, ImplGoSpin) {
		exp.Notes = append(exp.Notes, "spin/generic go through the ThreadParker protocol: the waker stores the flag (its cache line) and then the parker's word (a second line), the waiter spins on the parker's word and then reads the flag, so a wake moves two cache lines where c-spin and go-spin move one; adding that second line to go-spin makes it as slow as spin (measured), so the difference is the protocol, not Go")
	}
	procs := 0
	if len(o.GOMAXPROCS) == 1 {
		procs = o.GOMAXPROCS[0]
	}
	env := runenv.EnterProcs(2, procs)
	defer env.Restore()
	sysmon := schedacct.FindSysmon(nil)

	var rawImpls []string
	allRaw := len(plan) > 0
	maxAllocs := 0.0
	runs := make([]*configRun, len(plan))
	for i, c := range plan {
		runs[i] = &configRun{c: c, lot: lotBackend, sysmon: sysmon, schedCounts: o.SchedCounts || c.participants == driver.Goroutines, anatomy: o.Anatomy,
			collect: env.Collect, interleaved: o.Interleave}
	}
	defer func() {
		for _, cr := range runs {
			cr.close() // on error or cancellation; a no-op once finished
		}
	}()
	if o.Interleave {
		if err := runInterleaved(ctx, runs, o.Rounds, progress); err != nil {
			return nil, err
		}
	} else {
		h := driver.NewHist()
		for i, cr := range runs {
			if driver.Interrupted(ctx) {
				return nil, ctx.Err()
			}
			progress.Report(i, len(plan), cr.c.key())
			// One GOMAXPROCS for the configuration's participants, warm-up,
			// rounds and traced round; the run's is back before the next.
			err := cr.underProcs(func() error {
				if err := cr.start(ctx); err != nil {
					return err
				}
				for r := 0; r < o.Rounds; r++ {
					if driver.Interrupted(ctx) {
						return ctx.Err()
					}
					if err := cr.round(ctx, h); err != nil {
						return err
					}
				}
				return cr.finish(ctx)
			})
			if err != nil {
				return nil, err
			}
		}
	}
	for _, cr := range runs {
		c, cfg := cr.c, cr.cfg
		exp.Configs = append(exp.Configs, cfg)
		if c.impl.raw {
			if !slices.Contains(rawImpls, c.impl.name) {
				rawImpls = append(rawImpls, c.impl.name)
			}
		} else {
			allRaw = false
		}
		if c.impl.kind != KindCRef {
			for _, r := range cfg.Rounds {
				if a := r.Metrics[MAllocsPerRT]; a > maxAllocs {
					maxAllocs = a
				}
			}
		}
	}
	progress.Report(len(plan), len(plan), "")
	rt := env.Runtime()
	rt.SyscallMode = "syscall"
	if allRaw {
		rt.SyscallMode = "raw"
	}
	if len(rawImpls) > 0 && !allRaw {
		exp.Notes = append(exp.Notes, strings.Join(rawImpls, ", ")+" wait through RawSyscall (params syscall=raw); every other implementation through the scheduler-aware Syscall")
	}
	rt.AllocsPerOp = maxAllocs
	// Locked threads only if some configuration ran on them.
	rt.LockOSThread = slices.ContainsFunc(plan, func(c latencyConfig) bool { return c.participants != driver.Goroutines })
	exp.Runtime = rt
	if rt.GCCycles > 0 {
		exp.Warnings = append(exp.Warnings, fmt.Sprintf("%d GC cycle(s) ran during the run although GC was off (forced by another goroutine?)", rt.GCCycles))
	}
	if runtime.GOOS == "windows" {
		exp.Notes = append(exp.Notes, driver.ClockNote())
	}
	exp.Notes = append(exp.Notes, SchedShareNotes(exp)...)
	exp.Notes = append(exp.Notes, SpinLineNotes(exp)...)
	exp.Claims = LatencyClaims(exp)
	if o.Anatomy {
		exp.Warnings = append(exp.Warnings, anatomy.ProbeWarning(exp.Configs, MMedianSlept)...)
		exp.Metrics = append(slices.Clone(LatencyMetrics), anatomy.MetricSpecs()...)
		exp.Claims = append(exp.Claims, anatomy.Claims(exp)...)
	}
	return exp, nil
}

// configRun is one configuration being measured: its result, its
// participants and its rounds so far.
type configRun struct {
	c        latencyConfig
	cfg      *results.Config
	lot      parkers.Backend
	runner   pingpong.Runner
	foreign  *probe.Foreign
	perRound []map[string]float64
	// sysmon is the runtime's sysmon thread (0: unknown); schedCounts
	// asks for the traced round, whose counts land in sched.
	sysmon      int
	schedCounts bool
	sched       map[string]float64
	// anatomy: --anatomy; anat its tracing state once started. collect
	// (runenv.Env.Collect) frees what the configuration dropped when it
	// finishes (with --anatomy, after each traced round too): the run's GC
	// is off, and without it every configuration's garbage stays.
	anatomy bool
	anat    *anatomy.PairTrace
	collect func()
	// interleaved: --interleave (every configuration started at once).
	interleaved bool
}

// start probes the floor (right before the configuration's first round),
// opens the foreign-load window, starts the participants and runs the
// warm-up.
func (cr *configRun) start(ctx context.Context) error {
	c := cr.c
	cr.cfg = &results.Config{
		Key:       c.key(),
		Impl:      c.impl.name,
		Kind:      c.impl.kind,
		Placement: c.placement,
		Params: map[string]string{
			"sleeps":     strconv.FormatBool(c.impl.sleeps),
			"gap":        c.gap.String(),
			"warmup":     strconv.Itoa(c.warmup),
			"iterations": strconv.Itoa(c.n),
			"syscall":    syscallMode(c.impl),
			"cpus":       fmt.Sprint(c.cpus),
			// What ran the sides, and under how many Ps (read, not
			// assumed: underProcs has set it by now).
			"participants": participantsParam(c.participants),
			"gomaxprocs":   strconv.Itoa(runtime.GOMAXPROCS(0)),
		},
	}
	if c.impl.name == ImplLot {
		cr.cfg.Params["lot_parker"] = cr.lot.Name
	}
	if l := c.impl.ownLoop(c.impl.own.PingPong); l != "" {
		cr.cfg.Params[ext.LoopParam] = l
	}
	if s := parkers.SchedSetting(c.impl.name); s != "" {
		cr.cfg.Params["sched"] = s
	} else if c.impl.name == ImplLot && parkers.SchedSetting(cr.lot.Name) != "" {
		cr.cfg.Params["sched"] = parkers.SchedSetting(cr.lot.Name)
	}
	cr.cfg.Probe = measureProbe(probe.DefaultCPUs())
	cr.foreign = probe.StartForeign()
	r, err := openRunner(c, cr.anatomy)
	if err != nil {
		return fmt.Errorf("%s: %w", c.key(), err)
	}
	cr.runner = r
	if cr.anatomy {
		if cr.anat, err = openAnatomy(r, c, cr.collect, cr.interleaved); err != nil {
			return err
		}
	}
	if c.warmup > 0 {
		err := cr.withBackend(func() error {
			_, err := r.Round(ctx, c.warmup)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s warm-up: %w", c.key(), err)
		}
	}
	return nil
}

// withBackend runs fn with the configuration's parker under the lot (impl
// lot only).
func (cr *configRun) withBackend(fn func() error) error {
	if cr.c.impl.name == ImplLot {
		return driver.WithLotParker(cr.lot, fn)
	}
	return fn()
}

// round measures the next round (with --anatomy, and its traced twin).
func (cr *configRun) round(ctx context.Context, h *hdrhistogram.Histogram) error {
	if cr.anat != nil {
		return cr.anatomyRound(ctx, h)
	}
	return cr.plainRound(ctx, h)
}

// plainRound measures the next round, untraced.
func (cr *configRun) plainRound(ctx context.Context, h *hdrhistogram.Histogram) error {
	var m map[string]float64
	var hist string
	err := cr.withBackend(func() error {
		var err error
		m, hist, err = measureRound(ctx, cr.runner, cr.c.n, h, cr.sysmon, nil)
		return err
	})
	i := len(cr.perRound) + 1
	if err != nil {
		return fmt.Errorf("%s round %d: %w", cr.c.key(), i, err)
	}
	wakeMetric(m, cr.c.impl.sleeps)
	if m[MGCCycles] > 0 {
		cr.cfg.Warnings = append(cr.cfg.Warnings, fmt.Sprintf("round %d: %v GC cycle(s) ran inside the measured window", i, m[MGCCycles]))
	}
	cr.cfg.Rounds = append(cr.cfg.Rounds, results.Round{Metrics: m, Histogram: hist})
	cr.perRound = append(cr.perRound, m)
	return nil
}

// finish runs the traced round (if asked), stops the participants and
// completes the result.
func (cr *configRun) finish(ctx context.Context) error {
	if cr.schedCounts {
		if err := cr.countSched(ctx); err != nil {
			return err
		}
	}
	cr.close()
	cfg := cr.cfg
	cfg.Summary = driver.MedianOfRounds(cr.perRound)
	for k, v := range cr.sched {
		cfg.Summary[k] = v
	}
	if v, ok := pooledSameCPU(cr.perRound); ok {
		cfg.Summary[MSameCPU] = v
	}
	if cfg.Modes, cfg.ModesWarning = DetectModes(cfg); cfg.ModesWarning != "" {
		code, figure := modesCode(cfg)
		cfg.Warn(results.Warning{Code: code, Figure: figure, Text: cfg.ModesWarning})
	}
	if cr.anat != nil {
		cr.finishAnatomy()
	}
	cfg.Foreign = cr.foreign.Stop()
	if v, ok := cfg.Summary[MSameCPU]; ok {
		cfg.Foreign.SameCPUFraction = v
	}
	driver.WarnForeign(cfg)
	driver.RefuseBelowResolution(cfg, latencyTimeFigures, 1, monoclock.Resolution(), monoclock.Source)
	if cr.collect != nil && cr.anat == nil { // finishAnatomy has collected
		cr.collect()
	}
	return nil
}

func (cr *configRun) close() {
	cr.anat.Close()
	if cr.runner != nil {
		cr.runner.Close()
		cr.runner = nil
	}
}

func syscallMode(im e12Impl) string {
	switch {
	case im.kind == KindCRef:
		return "c"
	case im.raw:
		return "raw"
	}
	return "syscall"
}

// openRunner starts the configuration's two participants.
func openRunner(c latencyConfig, anatomy bool) (pingpong.Runner, error) {
	capacity := max(c.warmup, c.n, 1)
	sampleCPU := c.placement == driver.Unpinned
	if c.impl.kind == KindCRef {
		var p *cref.Pair
		var err error
		if c.impl.plugin != nil && c.impl.own.PingPong {
			p, err = cref.OpenPluginOwn(c.impl.plugin, c.cpus, capacity, c.gap, sampleCPU)
		} else if c.impl.plugin != nil {
			p, err = cref.OpenPlugin(c.impl.plugin, c.cpus, capacity, c.gap, sampleCPU)
		} else {
			p, err = cref.Open(c.impl.cmode, c.cpus, capacity, c.gap, sampleCPU)
		}
		if err != nil {
			return nil, err
		}
		if anatomy {
			if err := p.EnableEnds(); err != nil {
				p.Close()
				return nil, err
			}
		}
		return pingpong.C(p), nil
	}
	return pingpong.Open(mechanism(c.impl), pingpong.Config{Capacity: capacity, Gap: c.gap, SampleCPU: sampleCPU, Ends: anatomy,
		CPUs: c.cpus, Goroutines: c.participants == driver.Goroutines})
}

// mechanism is how im's Go participants wait and wake: the goroutine-only
// implementations' sync primitives, the lot, the Go twins of the C
// reference, spin-1line, else its parker backend's.
func mechanism(im e12Impl) pingpong.Mechanism {
	switch im.name {
	case ImplMutexSema:
		return pingpong.MutexSema
	case ImplRWMutexSema:
		return pingpong.RWMutexSema
	case ImplWaitGroup:
		return pingpong.WaitGroup
	case ImplLot:
		return pingpong.Lot
	case ImplGoFutex:
		return pingpong.GoFutex
	case ImplGoSpin:
		return pingpong.GoSpin
	case ImplSpinOneLine:
		return pingpong.OneLineSpin
	}
	return pingpong.Backend(im.backend)
}

// runInterleaved starts every configuration first (probe, participants,
// warm-up) and then runs the rounds round-robin: round r of every
// configuration, each round starting one configuration later than the last.
// On a VM whose vCPUs move between physical cores, or under a foreign load
// that comes and goes, every configuration then sees the same mix of host
// states, which is what a ratio between two of them needs. The foreign-load
// window of each configuration spans the whole interleaved run.
func runInterleaved(ctx context.Context, runs []*configRun, rounds int, progress driver.Progress) error {
	total := len(runs) * (rounds + 1)
	done := 0
	for _, cr := range runs {
		if driver.Interrupted(ctx) {
			return ctx.Err()
		}
		progress.Report(done, total, cr.c.key()+" (start)")
		if err := cr.underProcs(func() error { return cr.start(ctx) }); err != nil {
			return err
		}
		done++
	}
	h := driver.NewHist()
	for r := 0; r < rounds; r++ {
		for k := range runs {
			cr := runs[(r+k)%len(runs)]
			if driver.Interrupted(ctx) {
				return ctx.Err()
			}
			progress.Report(done, total, cr.c.key())
			if err := cr.underProcs(func() error { return cr.round(ctx, h) }); err != nil {
				return err
			}
			done++
		}
	}
	for _, cr := range runs {
		if err := cr.underProcs(func() error { return cr.finish(ctx) }); err != nil {
			return err
		}
	}
	return nil
}

// sleptMetrics puts the median and p99 of the samples of waits that slept
// into m, and unmarks the others in place: both runners store the sample
// of a wait that did not sleep as ^v (pingpong.Round.Samples).
func sleptMetrics(samples []int64, m map[string]float64) {
	slept := make([]float64, 0, len(samples))
	for i, v := range samples {
		if v < 0 {
			samples[i] = ^v
			continue
		}
		slept = append(slept, float64(v))
	}
	if len(slept) == 0 {
		return
	}
	slices.Sort(slept)
	m[MMinSlept] = slept[0]
	m[MMedianSlept] = stats.NearestRank(slept, 0.50)
	m[MP99Slept] = stats.NearestRank(slept, 0.99)
}

// wakeMetric puts a round's wake (MWakeMedian) into m: the median of the
// waits that slept for a mechanism that sleeps, of every wait for one that
// busy-waits.
func wakeMetric(m map[string]float64, sleeps bool) {
	k := results.MMedian
	if sleeps {
		k = MMedianSlept
	}
	if v, ok := m[k]; ok {
		m[MWakeMedian] = v
	}
}

// measureRound runs one round and turns its raw figures into metrics.
// Everything around the round (rusage, MemStats) is read by this
// controller goroutine while the participants are idle between rounds.
//
// capture, when not nil, sees the round's raw figures first (samples of
// waits that did not sleep still marked).
func measureRound(ctx context.Context, r pingpong.Runner, n int, hist *hdrhistogram.Histogram, sysmon int, capture func(pingpong.Round)) (map[string]float64, string, error) {
	hist.Reset()
	m := map[string]float64{}
	imm0 := r.Immediate()
	rt0 := schedacct.ReadRuntime() // allocates: before MemStats' window
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	sm0 := schedacct.SysmonSwitches(sysmon)
	u0, uerr0 := osthread.ProcessUsage()
	pr, err := r.Round(ctx, n)
	u1, uerr1 := osthread.ProcessUsage()
	sm1 := schedacct.SysmonSwitches(sysmon)
	runtime.ReadMemStats(&ms1)
	rtw := schedacct.ReadRuntime().Since(rt0)
	if err != nil {
		return nil, "", err
	}
	schedacct.RuntimeMetrics(rtw, n, m)
	imm := r.Immediate() - imm0
	if capture != nil {
		capture(pr)
	}
	sleptMetrics(pr.Samples, m)
	driver.RecordAll(hist, pr.Samples...) // sleptMetrics unmarked them
	driver.HistMetrics(hist, m)
	m[results.MNoSleep] = float64(pr.NoSleep)
	m[MNoSleepFraction] = float64(pr.NoSleep) / float64(2*n)
	m[MParkImmediate] = float64(imm)
	if uerr0 == nil && uerr1 == nil {
		m[results.MCtxSwSelf] = float64(u1.Sub(u0).Switches()) / float64(n)
	}
	if pr.ThreadCsw >= 0 {
		m[results.MCtxSwThread] = float64(pr.ThreadCsw) / float64(n)
		if uerr0 == nil && uerr1 == nil {
			m[MCtxSwOther] = m[results.MCtxSwSelf] - m[results.MCtxSwThread]
		}
	}
	if sm0 >= 0 && sm1 >= 0 {
		m[schedacct.MCtxSwSysmon] = float64(sm1-sm0) / float64(n)
	}
	if pr.CPUs > 0 {
		m[MSameCPU] = float64(pr.Same) / float64(pr.CPUs)
	}
	m[MAllocsPerRT] = float64(ms1.Mallocs-ms0.Mallocs) / float64(n)
	m[MGCCycles] = float64(ms1.NumGC - ms0.NumGC)
	enc, err := results.EncodeHist(hist)
	return m, enc, err
}

// --anatomy (docs/anatomy.md): every measured round is paired with a traced
// one (anatomy.PairTrace), in alternating order (traced first on odd
// rounds), so the probe effect (traced median against untraced) is measured
// under the same mix of host states.

// openAnatomy checks the configuration's participants can be traced
// (anatomy.NewPairTrace).
func openAnatomy(r pingpong.Runner, c latencyConfig, collect func(), perRound bool) (*anatomy.PairTrace, error) {
	return anatomy.NewPairTrace(r.Tids(), c.cpus, c.n, c.rounds, collect, perRound)
}

// tracedRound runs one round under the trace and joins it; it returns the
// round's anatomy figures.
func (cr *configRun) tracedRound(ctx context.Context, h *hdrhistogram.Histogram) (map[string]float64, error) {
	return cr.anat.Round(func(enable, disable func() error, capture func(samples, ends []int64)) (m map[string]float64, err error) {
		err = cr.withBackend(func() error {
			if err := enable(); err != nil {
				return err
			}
			var err error
			m, _, err = measureRound(ctx, cr.runner, cr.c.n, h, cr.sysmon, func(pr pingpong.Round) { capture(pr.Samples, pr.Ends) })
			if derr := disable(); err == nil {
				err = derr
			}
			return err
		})
		return m, err
	}, MMedianSlept)
}

// anatomyRound runs round i as a traced and an untraced round, in the
// order i's parity gives, and puts the traced round's anatomy into the
// untraced round's figures.
func (cr *configRun) anatomyRound(ctx context.Context, h *hdrhistogram.Histogram) error {
	i := len(cr.perRound) + 1
	var am map[string]float64
	var err error
	if i%2 == 1 {
		if am, err = cr.tracedRound(ctx, h); err != nil {
			return fmt.Errorf("%s traced round %d: %w", cr.c.key(), i, err)
		}
	}
	if err := cr.plainRound(ctx, h); err != nil {
		return err
	}
	if i%2 == 0 {
		if am, err = cr.tracedRound(ctx, h); err != nil {
			return fmt.Errorf("%s traced round %d: %w", cr.c.key(), i, err)
		}
	}
	m := cr.perRound[len(cr.perRound)-1]
	for k, v := range am {
		m[k] = v
	}
	if p, t := m[MMedianSlept], am[anatomy.MTracedMedian]; p > 0 && t > 0 {
		m[anatomy.MProbeEffect] = t/p - 1
	}
	return nil
}

// finishAnatomy puts the pooled anatomy into the summary (anatomy's
// Finish, with the rounds' probe effects: each traced round against its
// untraced twin, anatomyRound).
func (cr *configRun) finishAnatomy() {
	pairs := make([]float64, 0, len(cr.perRound))
	for _, r := range cr.perRound {
		if v, ok := r[anatomy.MProbeEffect]; ok {
			pairs = append(pairs, v)
		}
	}
	cr.anat.Finish(cr.cfg, pairs)
}

// What the Go scheduler does during E12's rounds (docs/scheduler.md).
//
// Every round reads sysmon's context switches around it (one /proc file,
// read by the controller between rounds), beside ctxsw_other_per_rt. After
// a configuration's measured rounds, one more round of the same length runs
// under the runtime trace (schedacct.Trace) and counts, per round trip, the
// P steals (sysmon's retake of a P whose goroutine sits in FUTEX_WAIT), the
// syscalls that came back without their P, the preemptions and the
// Goscheds. That round is not part of any latency figure: the trace costs
// time on every syscall.
//
// The traced round runs in as many parts as the configuration has measured
// rounds, each traced on its own and a share of the round trips: part i's
// counts go into round i's metrics (as --anatomy's traced twin of a round
// does), the summary's are the whole traced round's. E12-sched-steals is
// decided on the parts, so its spread shows in the default run (three
// rounds) at no more round trips: one traced round of the quiet AMD EPYC
// f25m17 guest's cross-core futex-plain is ~0.3 s, and a second full one
// for futex and futex-plain at three placements would add ~2 s to the
// 2:20-2:35 default run.

// countSched runs the configuration's traced round, in parts (one per
// measured round, each of about n/parts round trips), puts each part's
// counts into its round's metrics and the whole round's into sched. A
// trace already running elsewhere in the process is a warning, not an
// error.
func (cr *configRun) countSched(ctx context.Context) error {
	n := cr.c.n
	parts := max(1, min(len(cr.perRound), n))
	var total schedacct.Counts
	var wakes schedacct.Wakes
	per := make([]map[string]float64, parts)
	for i := range parts {
		trips := n / parts
		if i == parts-1 {
			trips = n - (parts-1)*(n/parts)
		}
		c, w, err := cr.tracedPart(ctx, trips)
		if errors.Is(err, schedacct.ErrTracing) {
			cr.cfg.Warnings = append(cr.cfg.Warnings, "scheduler counts not taken: "+err.Error())
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s traced round: %w", cr.c.key(), err)
		}
		per[i] = schedacct.Metrics(c, w, trips)
		total.Add(c)
		wakes.Add(w)
	}
	if parts > 1 {
		for i, m := range per {
			maps.Copy(cr.perRound[i], m)
		}
	}
	cr.sched = schedacct.Metrics(total, wakes, n)
	return nil
}

// tracedPart runs trips round trips under the runtime trace.
func (cr *configRun) tracedPart(ctx context.Context, trips int) (c schedacct.Counts, w schedacct.Wakes, err error) {
	err = cr.withBackend(func() error {
		var err error
		c, w, err = schedacct.TraceWakes(func() error {
			_, err := cr.runner.Round(ctx, trips)
			return err
		})
		return err
	})
	return c, w, err
}

// underProcs runs fn under the configuration's GOMAXPROCS (the run's when
// it has none) and puts the previous value back after it.
func (cr *configRun) underProcs(fn func() error) error {
	_, err := driver.WithProcs(cr.c.procs, fn)
	return err
}
