package e12

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// Limits of the E12 counts (the command refuses values outside them).
const (
	MaxIterations = 10_000_000
	MaxRounds     = 1000
	MaxWarmup     = 10_000_000
	MaxGap        = time.Second
)

// LatencyOptions configures E12, the ping-pong wake latency.
type LatencyOptions struct {
	// Impls are implementation names (see ImplNames), or "all".
	Impls []string
	// Placements are unpinned, cross-core, same-core, or "all".
	Placements []string
	// Warmup round trips run before a configuration's rounds, not
	// recorded; Iterations round trips are measured per round. Both apply
	// to gap 0.
	Warmup, Iterations int
	// Rounds per configuration (the summary is the median of rounds).
	Rounds int
	// Gaps: one configuration per value; before every wake the waker
	// sleeps this long (nanosleep on its thread), so the woken side's CPU
	// can go idle first: wake from idle, as cyclictest's timer wakeups.
	// Empty means {0}.
	Gaps []time.Duration
	// GapWarmup and GapIterations replace Warmup and Iterations for
	// gap > 0: each trip then takes at least 2 gaps, so fewer keep a run
	// short (defaults 100 and 2000).
	GapWarmup, GapIterations int
	// LotParker is the parker backend under impl lot ("": the lot's
	// current one, normally the platform default).
	LotParker string
	// Interleave runs the rounds round-robin across configurations (all
	// participants started first) instead of one configuration after the
	// other; see runInterleaved. For ratios between implementations on a
	// noisy or virtualised host.
	Interleave bool
	// GOMAXPROCS for the run; 0: runenv's choice (participants + 2, at
	// least the CPUs). Between 2 (the participants) and MaxGOMAXPROCS.
	GOMAXPROCS int
	// SchedCounts runs one extra, traced round per configuration and
	// records the scheduler's P steals, lost Ps, preemptions and
	// Goscheds per round trip (sched.go).
	SchedCounts bool
}

// MaxGOMAXPROCS bounds LatencyOptions.GOMAXPROCS.
const MaxGOMAXPROCS = 1024

// DefaultLatencyOptions is the study's method: every implementation, every
// placement, 1000 warm-up and 10 000 measured round trips, three rounds.
func DefaultLatencyOptions() LatencyOptions {
	return LatencyOptions{
		Impls:         []string{ImplAll},
		Placements:    []string{driver.All},
		Warmup:        1000,
		Iterations:    10_000,
		Rounds:        3,
		Gaps:          []time.Duration{0},
		GapWarmup:     100,
		GapIterations: 2000,
		SchedCounts:   true,
	}
}

// QuickLatencyOptions is a short run: cross-core only, 200 warm-up and 2000
// measured round trips, three rounds, no traced round (every implementation
// in well under a minute on two vCPUs).
func QuickLatencyOptions() LatencyOptions {
	o := DefaultLatencyOptions()
	o.Placements = []string{driver.CrossCore}
	if driver.SingleCPU() || driver.PinBlocked() != "" {
		// One CPU, or an affinity that cannot be read (every OS but
		// Linux): the quick run measures what this machine can (plan
		// says why cross-core is missing) instead of refusing to run.
		o.Placements = []string{driver.Unpinned}
	}
	o.Warmup = 200
	o.Iterations = 2000
	o.GapWarmup = 20
	o.GapIterations = 300
	// The traced round is opt-in here: one more round per configuration,
	// slower under the trace, it added about a third to latency --quick
	// (46 s -> 61 s measured on two loaded vCPUs). E12-sched-steals is then
	// not evaluated.
	o.SchedCounts = false
	return o
}

// latencyConfig is one planned configuration.
type latencyConfig struct {
	impl      e12Impl
	placement string
	gap       time.Duration
	warmup, n int
	rounds    int
	cpus      [2]int // -1: unpinned
}

func (c latencyConfig) key() string {
	k := c.impl.name + "/" + c.placement
	if c.gap > 0 {
		k += "/gap=" + c.gap.String()
	}
	return k
}

// Validate checks every option without measuring anything: counts,
// gaps, implementation names (unknown: the valid names; unavailable here:
// why), the lot parker and the placements this machine can do. Errors are
// *driver.OptionError naming the field.
func (o LatencyOptions) Validate() error {
	_, _, _, err := planLatency(o)
	return err
}

// planLatency validates every option and lists the configurations, before
// anything is measured.
func planLatency(o LatencyOptions) (plan []latencyConfig, warnings, notes []string, err error) {
	if o.GOMAXPROCS != 0 && (o.GOMAXPROCS < 2 || o.GOMAXPROCS > MaxGOMAXPROCS) {
		return nil, nil, nil, driver.Bad("GOMAXPROCS", "invalid gomaxprocs %d: must be 0 (automatic) or between 2 (the participants) and %d", o.GOMAXPROCS, MaxGOMAXPROCS)
	}
	for _, c := range []struct {
		field, what string
		v, min, max int
	}{{"Rounds", "rounds", o.Rounds, 1, MaxRounds},
		{"Iterations", "iterations", o.Iterations, 1, MaxIterations}, {"Warmup", "warmup", o.Warmup, 0, MaxWarmup},
		{"GapIterations", "gap iterations", o.GapIterations, 1, MaxIterations}, {"GapWarmup", "gap warmup", o.GapWarmup, 0, MaxWarmup}} {
		if err := driver.CheckCount(c.field, c.what, c.v, c.min, c.max); err != nil {
			return nil, nil, nil, err
		}
	}
	gaps := o.Gaps
	if len(gaps) == 0 {
		gaps = []time.Duration{0}
	}
	for _, g := range gaps {
		if g < 0 || g > MaxGap {
			return nil, nil, nil, driver.Bad("Gaps", "invalid gap %v: must be between 0 and %v", g, MaxGap)
		}
	}
	impls, warnings, notes, err := resolveImpls(o.Impls)
	if err != nil {
		return nil, nil, nil, err
	}
	if _, err := driver.LotParker("LotParker", o.LotParker); err != nil {
		return nil, nil, nil, err
	}
	places, explicitPlace, err := driver.ResolvePlacements("Placements", o.Placements)
	if err != nil {
		return nil, nil, nil, err
	}
	explicitImpl := !slices.Contains(o.Impls, ImplAll) && len(o.Impls) > 0
	single := driver.SingleCPU()
	if single {
		notes = append(notes, "this process may use one CPU only: nothing crosses cores, the busy-wait implementations are not run (their figures would not be a floor), and the spin-floor claim is not evaluated")
	}
	if why := driver.PinBlocked(); why != "" && !slices.Contains(places, driver.CrossCore) && !slices.Contains(places, driver.SameCore) {
		// Quick runs ask for unpinned alone here: say why cross-core is
		// missing (a run over every placement warns per placement below).
		warnings = append(warnings, "cross-core and same-core not run, threads unpinned: "+why)
	}
	for _, p := range places {
		cpus, msg := driver.PairCPUs(p)
		if msg != "" {
			if explicitPlace[p] {
				return nil, nil, nil, driver.Bad("Placements", "placement %s: %s", p, msg)
			}
			warnings = append(warnings, p+" skipped: "+msg)
			continue
		}
		for _, im := range impls {
			if (p == driver.SameCore || single) && im.busy {
				why := "two busy-waiting threads on one CPU measure the scheduler's time slice, not a wake"
				if single {
					why = "this process may use one CPU only, and " + why
				}
				if explicitPlace[p] && explicitImpl {
					return nil, nil, nil, driver.Bad("Placements", "%s at %s is not run: %s", im.name, p, why)
				}
				warnings = append(warnings, fmt.Sprintf("%s at %s skipped: %s", im.name, p, why))
				continue
			}
			for _, g := range gaps {
				c := latencyConfig{impl: im, placement: p, gap: g, warmup: o.Warmup, n: o.Iterations, rounds: o.Rounds, cpus: cpus}
				if g > 0 {
					c.warmup, c.n = o.GapWarmup, o.GapIterations
				}
				plan = append(plan, c)
			}
		}
	}
	return plan, warnings, notes, nil
}

// hasImpl reports whether plan measures any of names.
func hasImpl(plan []latencyConfig, names ...string) bool {
	for _, c := range plan {
		if slices.Contains(names, c.impl.name) {
			return true
		}
	}
	return false
}

// optionsMap records every option as strings (Experiment.Options).
func (o LatencyOptions) optionsMap() map[string]string {
	gaps := make([]string, 0, len(o.Gaps))
	for _, g := range o.Gaps {
		gaps = append(gaps, g.String())
	}
	if len(gaps) == 0 {
		gaps = []string{"0s"}
	}
	impls := o.Impls
	if len(impls) == 0 {
		impls = []string{ImplAll}
	}
	places := o.Placements
	if len(places) == 0 {
		places = []string{driver.All}
	}
	return map[string]string{
		"impls":          strings.Join(impls, ","),
		"placements":     strings.Join(places, ","),
		"warmup":         strconv.Itoa(o.Warmup),
		"iterations":     strconv.Itoa(o.Iterations),
		"rounds":         strconv.Itoa(o.Rounds),
		"gaps":           strings.Join(gaps, ","),
		"gap_warmup":     strconv.Itoa(o.GapWarmup),
		"gap_iterations": strconv.Itoa(o.GapIterations),
		"lot_parker":     o.LotParker,
		"interleave":     strconv.FormatBool(o.Interleave),
		"gomaxprocs":     strconv.Itoa(o.GOMAXPROCS),
		"sched_counts":   strconv.FormatBool(o.SchedCounts),
	}
}

// RunLatency runs E12: for each implementation x placement x gap, a
// ping-pong between two participant threads, warm-up then Rounds rounds of
// Iterations round trips, and evaluates the study's claims. It validates
// every option before measuring (an *driver.OptionError for bad input), holds the
// runtime in runenv's state for the whole run and restores it on return,
// also on cancellation (ctx is checked between rounds; it then returns
// ctx.Err()).
func RunLatency(ctx context.Context, o LatencyOptions, progress driver.Progress) (*results.Experiment, error) {
	plan, warnings, notes, err := planLatency(o)
	if err != nil {
		return nil, err
	}
	lotBackend, _ := driver.LotParker("LotParker", o.LotParker)
	exp := &results.Experiment{
		Name:     "latency",
		Options:  o.optionsMap(),
		Warnings: warnings,
		Notes:    notes,
	}
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
	env := runenv.EnterProcs(2, o.GOMAXPROCS)
	defer env.Restore()
	sysmon := schedacct.FindSysmon(nil)

	var rawImpls []string
	allRaw := len(plan) > 0
	maxAllocs := 0.0
	runs := make([]*configRun, len(plan))
	for i, c := range plan {
		runs[i] = &configRun{c: c, lot: lotBackend, sysmon: sysmon, schedCounts: o.SchedCounts}
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
			if err := cr.start(ctx); err != nil {
				return nil, err
			}
			for r := 0; r < o.Rounds; r++ {
				if driver.Interrupted(ctx) {
					return nil, ctx.Err()
				}
				if err := cr.round(ctx, h); err != nil {
					return nil, err
				}
			}
			if err := cr.finish(ctx); err != nil {
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
	exp.Runtime = rt
	if rt.GCCycles > 0 {
		exp.Warnings = append(exp.Warnings, fmt.Sprintf("%d GC cycle(s) ran during the run although GC was off (forced by another goroutine?)", rt.GCCycles))
	}
	if runtime.GOOS == "windows" {
		exp.Notes = append(exp.Notes, "samples timed with "+monoclock.Source+": Go's own monotonic clock here advances only at the system timer's tick (internal/monoclock)")
	}
	exp.Notes = append(exp.Notes, SchedShareNotes(exp)...)
	exp.Claims = LatencyClaims(exp)
	return exp, nil
}

// configRun is one configuration being measured: its result, its
// participants and its rounds so far.
type configRun struct {
	c        latencyConfig
	cfg      *results.Config
	lot      parkers.Backend
	runner   pairRunner
	foreign  *probe.Foreign
	perRound []map[string]float64
	// sysmon is the runtime's sysmon thread (0: unknown); schedCounts
	// asks for the traced round, whose counts land in sched.
	sysmon      int
	schedCounts bool
	sched       map[string]float64
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
		},
	}
	if c.impl.name == ImplLot {
		cr.cfg.Params["lot_parker"] = cr.lot.Name
	}
	if s := parkers.SchedSetting(c.impl.name); s != "" {
		cr.cfg.Params["sched"] = s
	} else if c.impl.name == ImplLot && parkers.SchedSetting(cr.lot.Name) != "" {
		cr.cfg.Params["sched"] = parkers.SchedSetting(cr.lot.Name)
	}
	cr.cfg.Probe = measureProbe(probe.DefaultCPUs())
	cr.foreign = probe.StartForeign()
	r, err := openRunner(c)
	if err != nil {
		return fmt.Errorf("%s: %w", c.key(), err)
	}
	cr.runner = r
	if c.warmup > 0 {
		err := cr.withBackend(func() error {
			_, err := r.round(ctx, c.warmup)
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

// round measures the next round.
func (cr *configRun) round(ctx context.Context, h *hdrhistogram.Histogram) error {
	var m map[string]float64
	var hist string
	err := cr.withBackend(func() error {
		var err error
		m, hist, err = measureRound(ctx, cr.runner, cr.c.n, h, cr.sysmon)
		return err
	})
	i := len(cr.perRound) + 1
	if err != nil {
		return fmt.Errorf("%s round %d: %w", cr.c.key(), i, err)
	}
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
	cfg.Foreign = cr.foreign.Stop()
	if v, ok := cfg.Summary[MSameCPU]; ok {
		cfg.Foreign.SameCPUFraction = v
	}
	if f := cfg.Foreign.Fraction; f > 0.05 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("other processes used %.0f%% of the CPU time while this ran: the figures are noisy", 100*f))
	}
	return nil
}

func (cr *configRun) close() {
	if cr.runner != nil {
		cr.runner.close()
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
func openRunner(c latencyConfig) (pairRunner, error) {
	capacity := max(c.warmup, c.n, 1)
	sampleCPU := c.placement == driver.Unpinned
	if c.impl.kind == KindCRef {
		p, err := cref.Open(c.impl.cmode, c.cpus, capacity, c.gap, sampleCPU)
		if err != nil {
			return nil, err
		}
		return cPair{p}, nil
	}
	pp := &pingpong{base: nanotime(), gap: c.gap, sampleCPU: sampleCPU, samples: make([]int64, 2*capacity)}
	var m mechanism
	switch c.impl.name {
	case ImplLot:
		m = newLotMech(pp)
	case ImplGoFutex:
		m = &twinFutex{pp: pp}
	case ImplGoSpin:
		m = &twinSpin{pp: pp}
	default:
		m = newBackendMech(c.impl.backend, pp)
	}
	return newGoPair(m, pp, c.cpus)
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
		if err := cr.start(ctx); err != nil {
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
			if err := cr.round(ctx, h); err != nil {
				return err
			}
			done++
		}
	}
	for _, cr := range runs {
		if err := cr.finish(ctx); err != nil {
			return err
		}
	}
	return nil
}

// sleptMetrics puts the median and p99 of the samples of waits that slept
// into m, and unmarks the others in place: both runners store the sample
// of a wait that did not sleep as ^v (pingpong.run, cref.c run_round).
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
	// Nearest rank, as the histograms' quantiles.
	rank := func(q float64) float64 {
		i := int(math.Ceil(q*float64(len(slept)))) - 1
		return slept[max(0, min(i, len(slept)-1))]
	}
	m[MMedianSlept] = rank(0.50)
	m[MP99Slept] = rank(0.99)
}

// measureRound runs one round and turns its raw figures into metrics.
// Everything around the round (rusage, MemStats) is read by this
// controller goroutine while the participants are idle between rounds.
func measureRound(ctx context.Context, r pairRunner, n int, hist *hdrhistogram.Histogram, sysmon int) (map[string]float64, string, error) {
	hist.Reset()
	imm0 := r.immediate()
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	sm0 := sysmonSwitches(sysmon)
	u0, uerr0 := osthread.ProcessUsage()
	pr, err := r.round(ctx, n)
	u1, uerr1 := osthread.ProcessUsage()
	sm1 := sysmonSwitches(sysmon)
	runtime.ReadMemStats(&ms1)
	if err != nil {
		return nil, "", err
	}
	imm := r.immediate() - imm0
	m := map[string]float64{}
	sleptMetrics(pr.samples, m)
	driver.RecordAll(hist, pr.samples...) // sleptMetrics unmarked them
	driver.HistMetrics(hist, m)
	m[results.MNoSleep] = float64(pr.noSleep)
	m[MNoSleepFraction] = float64(pr.noSleep) / float64(2*n)
	m[MParkImmediate] = float64(imm)
	if uerr0 == nil && uerr1 == nil {
		m[results.MCtxSwSelf] = float64(u1.Sub(u0).Switches()) / float64(n)
	}
	if pr.threadCsw >= 0 {
		m[results.MCtxSwThread] = float64(pr.threadCsw) / float64(n)
		if uerr0 == nil && uerr1 == nil {
			m[MCtxSwOther] = m[results.MCtxSwSelf] - m[results.MCtxSwThread]
		}
	}
	if sm0 >= 0 && sm1 >= 0 {
		m[MCtxSwSysmon] = float64(sm1-sm0) / float64(n)
	}
	if pr.cpus > 0 {
		m[MSameCPU] = float64(pr.same) / float64(pr.cpus)
	}
	m[MAllocsPerRT] = float64(ms1.Mallocs-ms0.Mallocs) / float64(n)
	m[MGCCycles] = float64(ms1.NumGC - ms0.NumGC)
	enc, err := results.EncodeHist(hist)
	return m, enc, err
}
