package selfwake

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strconv"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// PlanSelfwake validates o and returns the run it describes. RunSelfwake
// runs the reverse check for every implementation: per round, Samples
// samples of Pairs wake-then-wait pairs on one participant thread pinned
// to probe.DefaultCPUs()[0]; ns per pair is the median of the samples (min
// and p99 too). The runtime is held as in RunLatency.
var PlanSelfwake, RunSelfwake = driver.Planned(planSelfwake)

func (p *selfwakePlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, plan, lotBackend := p.o, p.impls, p.lot
	var err error
	exp := &results.Experiment{Name: "selfwake", Metrics: Metrics, Options: driver.Echo(o), Warnings: p.warnings, Notes: p.notes}
	env := runenv.Enter(1)
	defer env.Restore()
	cpu := probe.DefaultCPUs()[0]
	maxAllocs := 0.0
	for i, im := range plan {
		if driver.Interrupted(ctx) {
			return nil, ctx.Err()
		}
		key := im.Name()
		if im.goroutines {
			key += "/" + driver.Goroutines
		}
		progress.Report(i, len(plan), key)
		cfg := &results.Config{
			Key:  key,
			Impl: im.Name(),
			Kind: im.Kind(),
			Params: map[string]string{
				"pairs":        strconv.Itoa(o.Pairs),
				"cpu":          strconv.Itoa(cpu),
				"sleeps":       strconv.FormatBool(im.Sleeps()),
				"histogram":    fmt.Sprintf("ns per sample of %d pairs", o.Pairs),
				"participants": im.participants(),
			},
		}
		if l := im.OwnLoop(im.Own().Selfwake); l != "" {
			cfg.Params[ext.LoopParam] = l
		}
		cfg.Probe = measureProbe(probe.DefaultCPUs())
		foreign := probe.StartForeign()
		run := func() error { return runSelfwakeConfig(ctx, im, o, cpu, cfg) }
		if im.Name() == latency.ImplLot {
			cfg.Params["lot_parker"] = lotBackend.Name
			err = driver.WithLotParker(lotBackend, run)
		} else {
			err = run()
		}
		cfg.Foreign = foreign.Stop()
		if err != nil {
			return nil, err
		}
		driver.WarnForeign(cfg)
		if im.Kind() != latency.KindCRef {
			for _, r := range cfg.Rounds {
				maxAllocs = max(maxAllocs, r.Metrics[MAllocsPerPair])
			}
		}
		exp.Configs = append(exp.Configs, cfg)
	}
	progress.Report(len(plan), len(plan), "")
	rt := env.Runtime()
	rt.SyscallMode = "syscall"
	rt.AllocsPerOp = maxAllocs
	rt.LockOSThread = slices.ContainsFunc(plan, func(im selfwakeImpl) bool { return !im.goroutines })
	exp.Runtime = rt
	if rt.GCCycles > 0 {
		exp.Warnings = append(exp.Warnings, fmt.Sprintf("%d GC cycle(s) ran during the run although GC was off", rt.GCCycles))
	}
	if runtime.GOOS == "windows" {
		exp.Notes = append(exp.Notes, driver.ClockNote())
	}
	exp.Notes = append(exp.Notes, selfwakeHarnessNotes(exp.Configs)...)
	exp.Notes = append(exp.Notes, selfwakeModeNotes(exp.Configs)...)
	exp.Claims = Claims(exp)
	return exp, nil
}

// selfRound is what the participant hands back per round.
type selfRound struct {
	csw   int64
	slept int
	err   error // a library's own loop refused
}

// runSelfwakeConfig runs one implementation's warm-up and rounds on a fresh
// participant thread.
func runSelfwakeConfig(ctx context.Context, im selfwakeImpl, o Options, cpu int, cfg *results.Config) error {
	m := newSelfMech(im)
	m0 := m
	samples := make([]int64, o.Samples)
	cmd := make(chan int, 1) // samples to take this round; closed: exit
	done := make(chan selfRound, 1)
	ready := make(chan error, 1)
	// A plain goroutine (goroutines) is not pinned and has no thread of
	// its own: its switches are the process's.
	usage := osthread.ThreadUsage
	if im.goroutines {
		usage, cpu = osthread.ProcessUsage, -1
		cfg.Params["cpu"] = "-1"
	}
	osthread.Start(im.goroutines, func() {
		if cpu >= 0 {
			if err := osthread.Pin(cpu); err != nil {
				ready <- err
				return
			}
		}
		if m != nil {
			m.setup()
		}
		ready <- nil
		for n := range cmd {
			u0, _ := usage()
			var r selfRound
			if m == nil && im.Plugin() != nil && im.Own().Selfwake {
				// The library's own loop: a loop that does not do the
				// pairs asked for is refused (cref.SelfwakeOwn).
				r.err = cref.SelfwakeOwn(im.Plugin(), o.Pairs, samples[:n])
				r.slept = -1
			} else if m == nil && im.Plugin() != nil {
				// Watched by its thread's slot (internal/watch); slept
				// is -1: the library's to know.
				r.slept = cref.SelfwakePlugin(im.Plugin(), o.Pairs, samples[:n])
			} else if m == nil {
				r.slept = cref.Selfwake(im.CMode(), o.Pairs, samples[:n])
			} else {
				s0 := m.slept()
				// The experiments' clock (internal/monoclock), as the
				// latency samples and the C reference: one read per
				// edge. Go's own clock (time.Since) steps at the timer
				// tick on Windows, which read every sample as 0.
				t0 := monoclock.Nanotime()
				for k := 0; k < n; k++ {
					m.pairs(o.Pairs)
					t1 := monoclock.Nanotime()
					samples[k] = t1 - t0
					t0 = t1
				}
				r.slept = m.slept() - s0
			}
			u1, _ := usage()
			r.csw = u1.Sub(u0).Switches()
			done <- r
		}
	})
	if err := <-ready; err != nil {
		return fmt.Errorf("selfwake %s: pin to CPU %d: %w", im.Name(), cpu, err)
	}
	defer close(cmd)
	// Warm-up: a tenth of a round, not recorded.
	cmd <- max(o.Samples/10, 1)
	if r := <-done; r.err != nil {
		return r.err
	}
	h := driver.NewHist()
	var perRound []map[string]float64
	for round := 0; round < o.Rounds; round++ {
		if driver.Interrupted(ctx) {
			return ctx.Err()
		}
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		cmd <- o.Samples
		r := <-done
		if r.err != nil {
			return r.err
		}
		runtime.ReadMemStats(&ms1)
		h.Reset()
		driver.RecordAll(h, samples...)
		pairs := float64(o.Pairs)
		total := float64(o.Samples) * pairs
		m := map[string]float64{
			results.MNsPerPair: float64(h.ValueAtQuantile(50)) / pairs,
			results.MMin:       float64(h.Min()) / pairs,
			results.MP99:       float64(h.ValueAtQuantile(99)) / pairs,
			results.MMax:       float64(h.Max()) / pairs,
			results.MSamples:   float64(h.TotalCount()),
			MCtxSwPerPair:      float64(r.csw) / total,
			MAllocsPerPair:     float64(ms1.Mallocs-ms0.Mallocs) / total,
			latency.MGCCycles:  float64(ms1.NumGC - ms0.NumGC),
			MSyscallNs:         cfg.Probe.SyscallNs,
		}
		if (im.Kind() == latency.KindCRef || im.Kind() == latency.KindTwin) && r.slept >= 0 {
			m[MSleptWaits] = float64(r.slept)
		}
		if m[latency.MGCCycles] > 0 {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("round %d: GC ran inside the measured window", round+1))
		}
		enc, err := results.EncodeHist(h)
		if err != nil {
			return fmt.Errorf("selfwake %s: %w", im.Name(), err)
		}
		if sl, ok := m0.(*selfLot); ok {
			// The harness floor: the empty pair in the same loop, one
			// round of as many samples, right after the real round.
			sl.empty = true
			cmd <- o.Samples
			<-done
			sl.empty = false
			h.Reset()
			driver.RecordAll(h, samples...)
			m[MHarnessNs] = float64(h.ValueAtQuantile(50)) / pairs
			m[MOverHarness] = m[results.MNsPerPair] - m[MHarnessNs]
		}
		cfg.Rounds = append(cfg.Rounds, results.Round{Metrics: m, Histogram: enc})
		perRound = append(perRound, m)
	}
	cfg.Summary = driver.MedianOfRounds(perRound)
	driver.RefuseBelowResolution(cfg, timeFigures, float64(o.Pairs), monoclock.Resolution(), monoclock.Source)
	return nil
}

// selfwakeModeSpread is the ratio of lot's slowest round to its fastest
// above which selfwake says the rounds ran in different modes.
const selfwakeModeSpread = 1.2

// selfwakeModeNotes flags lot's pair when its rounds disagree by more than
// selfwakeModeSpread: on the AMD EPYC guest the pair runs at one of two or
// three speeds (11.6 against 14.8 ns and more) that change over
// milliseconds with the same bucket, key and stack addresses, while a
// dependent multiply chain keeps its speed (docs/findings.md, "The port's
// fast paths"); a figure from such a run is a mix of modes.
func selfwakeModeNotes(configs []*results.Config) []string {
	for _, c := range configs {
		if c.Impl != latency.ImplLot || len(c.Rounds) < 2 {
			continue
		}
		v := claim.Values(c, results.MNsPerPair)
		lo, hi := slices.Min(v), slices.Max(v)
		if lo > 0 && hi > selfwakeModeSpread*lo {
			return []string{fmt.Sprintf("%s's rounds read %.2f to %.2f ns per pair (x%.2f): the pair ran at more than one speed during the run (a machine mode, not the port's placement: docs/findings.md, \"The port's fast paths\"); compare with an original measured in the same run", c.Key, lo, hi, hi/lo)}
		}
	}
	return nil
}

// selfwakeHarnessFraction is the share of lot's pair above which the
// harness is said to weigh on its figure (a fifth).
const selfwakeHarnessFraction = 0.2

// selfwakeHarnessNotes says what lot's harness floor is and, when it costs
// more than a fifth of lot's pair above it, that the figure should be read
// above the floor.
func selfwakeHarnessNotes(configs []*results.Config) []string {
	for _, c := range configs {
		h, ok := c.Summary[MHarnessNs]
		if !ok {
			continue
		}
		over := c.Summary[MOverHarness]
		notes := []string{fmt.Sprintf("harness floor: %s's loop with UnparkOne and Park replaced by empty functions of the same signatures (the empty pair) costs %.2f ns per pair; over harness is %s's ns/pair less it", c.Impl, h, c.Impl)}
		if over > 0 && h > selfwakeHarnessFraction*over {
			notes = append(notes, fmt.Sprintf("the harness costs more than a fifth of %s's pair (%.2f ns against %.2f ns above it): read over harness", c.Impl, h, over))
		}
		// What a comparison with parking_lot_core's pair includes that the
		// floor does not show; scripts/vs-rust.sh modes measures each.
		notes = append(notes, fmt.Sprintf("beside parking_lot_core's pair, %s's also pays Go's calls (rustc inlines park and unpark_one into the loop) and Park's validate guard (a deferred unlock); scripts/vs-rust.sh modes times the pair without each (docs/findings.md, \"Fifth pass\")", c.Impl))
		return notes
	}
	return nil
}
