package inversion

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// Metric names beside results.MMin, MMedian, MP99, MMax, MSamples.
const (
	// MCritical is the critical section asked for (--hold), in ns.
	MCritical = "critical_section_ns"
	// MMediumNs is medium's spin (--medium), in ns.
	MMediumNs = "medium_ns"
	// MHeld is the median of low's critical section as it ran (lock to
	// unlock, wall clock): the hold plus whatever ran on the CPU meanwhile.
	MHeld = "held_median_ns"
	// MMediumSwitched counts rounds in which the medium thread was
	// switched out during its spin (a Go preemption or anything else that
	// took the CPU from an RT thread): those rounds' inversion is shorter.
	MMediumSwitched = "medium_switched_rounds"
	// MSteal is the time the host took the measured CPU away during the
	// implementation's rounds (steal in /proc/stat, in ns; its unit is a
	// clock tick, 10 ms): what the guest cannot see in its traces.
	MSteal = "cpu_steal_ns"
)

// Run measures every implementation.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// sample is one implementation's rounds.
type sample struct {
	waits    []int64 // high's wait per round, ns
	held     []int64 // low's critical section per round, ns
	switched int     // rounds in which medium was switched out
	slowArms int     // rounds whose low's arm hand-off took longer than slowArm
	steal    int64   // host steal on the measured CPU over the rounds, ns (-1: unknown)
}

// Run runs the plan.
func (p *invPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o := p.o
	exp := &results.Experiment{
		Name:     "inversion",
		Metrics:  Metrics,
		Options:  driver.Echo(o),
		Warnings: slices.Clone(p.Warnings),
	}
	exp.Options[MCritical] = fmt.Sprint(o.Hold.Nanoseconds())
	exp.Options["priorities"] = fmt.Sprintf("low=%d,medium=%d,high=%d (SCHED_FIFO)", PrioLow, PrioMedium, PrioHigh)
	for k, v := range p.host.options() {
		exp.Options[k] = v
	}
	for _, f := range p.host.forced {
		exp.Warnings = append(exp.Warnings, "--force: ran although "+f)
	}
	// Three participants and the watchdog; GC off for the whole run (no
	// collection can stop the world while an RT thread spins).
	env := runenv.Enter(4)
	defer env.Restore()
	for i, im := range p.Items {
		if driver.Interrupted(ctx) {
			return nil, ctx.Err()
		}
		progress.Report(i, len(p.Items), im.name)
		s, err := p.measure(ctx, im)
		if err != nil {
			if driver.Interrupted(ctx) {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("inversion %s: %w", im.name, err)
		}
		c, err := buildConfig(im, o, s)
		if err != nil {
			return nil, err
		}
		exp.Configs = append(exp.Configs, c)
	}
	progress.Report(len(p.Items), len(p.Items), "")
	exp.Runtime = env.Runtime()
	exp.Runtime.SyscallMode = "syscall"
	exp.Claims = Claims(exp.Configs)
	exp.Notes = notes(o)
	return exp, nil
}

func notes(o Options) []string {
	return []string{
		fmt.Sprintf("method: rt-tests' pi_stress scenario (docs/experiments.md): low (FIFO %d) locks and works %v; high (FIFO %d) preempts it, wakes medium (FIFO %d) and blocks; "+
			"medium spins %v; all three pinned to one CPU, a watchdog on another; wait = high's lock call, timed by high", PrioLow, o.Hold, PrioHigh, PrioMedium, o.Medium),
		"with priority inheritance the kernel runs low at high's priority until it unlocks, so the wait is the rest of the critical section; without it medium runs first and the wait includes its spin",
		"Go runtime: GC off for the run, the three threads locked to their OS threads (exiting locked retires them), SCHED_RESET_ON_FORK set; " +
			"each thread calls runtime.Gosched before its round (medium, high, then low, who starts it), so sysmon's 10 ms preemption clock starts there, not inside the critical section; " +
			"medium's spin is Go code, which sysmon may still preempt near its end (med switched counts those rounds)",
		"what the guest cannot see: the host may take the measured vCPU away (steal time); a PI round with no guest-visible event on the CPU but a longer section is that",
	}
}

func buildConfig(im impl, o Options, s sample) (*results.Config, error) {
	if len(s.waits) == 0 {
		return nil, fmt.Errorf("inversion %s: no round measured", im.name)
	}
	w := slices.Clone(s.waits)
	slices.Sort(w)
	held := slices.Clone(s.held)
	slices.Sort(held)
	h := driver.NewHist()
	driver.RecordAll(h, s.waits...)
	enc, err := results.EncodeHist(h)
	if err != nil {
		return nil, fmt.Errorf("inversion %s: %w", im.name, err)
	}
	m := map[string]float64{
		results.MMin:     float64(w[0]),
		results.MMedian:  stats.NearestRank(w, 0.5),
		results.MP99:     stats.NearestRank(w, 0.99),
		results.MMax:     float64(w[len(w)-1]),
		results.MSamples: float64(len(w)),
		MCritical:        float64(o.Hold.Nanoseconds()),
		MMediumNs:        float64(o.Medium.Nanoseconds()),
		MMediumSwitched:  float64(s.switched),
	}
	if s.steal >= 0 {
		m[MSteal] = float64(s.steal)
	}
	if len(held) > 0 {
		m[MHeld] = stats.NearestRank(held, 0.5)
	}
	c := &results.Config{
		Key:     im.name,
		Impl:    im.name,
		Kind:    im.kind,
		Params:  map[string]string{"pi": fmt.Sprint(im.pi), "hold": o.Hold.String(), "medium": o.Medium.String()},
		Rounds:  []results.Round{{Metrics: m, Histogram: enc}},
		Summary: maps.Clone(m), // m is not nil: a copy, not an alias of round 0
	}
	if s.slowArms > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("low's arm hand-off (runtime.Gosched through the other CPU) took over 5 ms after high's in %d of %d rounds: "+
			"sysmon's 10 ms may have run out inside them (a P taken from high or low: the runtime's delay, not the lock's; a loaded machine)", s.slowArms, len(w)))
	}
	if s.switched > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("medium was switched out during its spin in %d of %d rounds", s.switched, len(w)))
	}
	return c, nil
}
