package latency

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
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
	Impls []string `flag:"impl" opt:"impls,empty=all" placeholder:"NAME" help:"implementations: NAME, a comma list, or all ({ImplNames})"`
	// Placements are unpinned, cross-core, same-core, or "all".
	Placements []string `flag:"placement" opt:"placements,empty=all" help:"placements: unpinned, cross-core, same-core, a comma list, or all"`
	// Warmup round trips run before a configuration's rounds, not
	// recorded; Iterations round trips are measured per round. Both apply
	// to gap 0.
	Warmup     int `flag:"warmup" opt:"warmup" help:"warm-up round trips per configuration, not recorded"`
	Iterations int `flag:"iterations" opt:"iterations" help:"measured round trips per round"`
	// Rounds per configuration (the summary is the median of rounds).
	Rounds int `flag:"rounds" opt:"rounds" help:"rounds per configuration"`
	// Gaps: one configuration per value; before every wake the waker
	// sleeps this long (nanosleep on its thread), so the woken side's CPU
	// can go idle first: wake from idle, as cyclictest's timer wakeups.
	// Empty means {0}.
	Gaps []time.Duration `flag:"gap" opt:"gaps,empty=0s" placeholder:"D[,D...]" help:"idle gap before each wake, D[,D...] (e.g. 0,50us,200us,1ms); one configuration per value"`
	// GapWarmup and GapIterations replace Warmup and Iterations for
	// gap > 0: each trip then takes at least 2 gaps, so fewer keep a run
	// short (defaults 100 and 2000).
	GapWarmup     int `flag:"warmup" opt:"gap_warmup"`
	GapIterations int `flag:"iterations" opt:"gap_iterations"`
	// LotParker is the parker backend under impl lot ("": the lot's
	// current one, normally the platform default).
	LotParker string `flag:"lot-parker" opt:"lot_parker" help:"parker backend under impl lot (default: the platform default)"`
	// Interleave runs the rounds round-robin across configurations (all
	// participants started first) instead of one configuration after the
	// other; see runInterleaved. For ratios between implementations on a
	// noisy or virtualised host.
	Interleave bool `flag:"interleave" opt:"interleave" help:"run the rounds round-robin across configurations (all started first): fair ratios on a noisy or virtualised host"`
	// GOMAXPROCS: one configuration per value (1..driver.MaxProcs),
	// set before the configuration's first round and put back after its
	// last; empty: runenv's choice (participants + 2, at least the CPUs).
	GOMAXPROCS []int `flag:"gomaxprocs" opt:"gomaxprocs" placeholder:"N[,N...]" help:"GOMAXPROCS, N[,N...] (1 to 256): one configuration per value, put back after it (default: participants + 2, at least the CPUs)"`
	// Participants: threads (goroutines locked to their OS threads, the
	// default), goroutines (plain goroutines, unlocked and unpinned), or
	// both (internal/pingpong/goroutines.go).
	Participants []string `flag:"participants" opt:"participants,empty=threads" help:"what runs the two sides: threads (goroutines locked to their threads), goroutines (plain, unpinned), a comma list, or all"`
	// SchedCounts runs one extra, traced round per configuration and
	// records the scheduler's P steals, lost Ps, preemptions and
	// Goscheds per round trip (run.go, the figures internal/schedacct's).
	SchedCounts bool `flag:"sched-counts" opt:"sched_counts" help:"one extra traced round per configuration: the Go scheduler's P steals, lost Ps, preemptions and Goscheds per round trip"`
	// Anatomy pairs every round with a round traced through the kernel's
	// tracepoints and splits each traced wake into its parts
	// (internal/anatomy, docs/anatomy.md). Linux only, as root.
	Anatomy bool `flag:"anatomy" opt:"anatomy,omitempty" help:"pair every round with one traced through the kernel's tracepoints and split each wake into call, idle_exit, schedule, return, residual (Linux, root; docs/anatomy.md)"`
}

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
	// and a slower one under the trace, it adds about a third to latency
	// --quick (docs/findings.md, "What things cost"). E12-sched-steals is
	// then not evaluated.
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
	// participants: driver.Threads or driver.Goroutines; procs the
	// GOMAXPROCS it runs under (0: the run's), sweep whether the key
	// names it (more than one value given).
	participants string
	procs        int
	sweep        bool
}

// key is impl/placement[/gap=D] for threads, impl/goroutines for
// goroutines (they have no placement), then /procs=N when GOMAXPROCS is
// swept: a threads key without a sweep is what it was before
// participants existed.
func (c latencyConfig) key() string {
	k := c.impl.name + "/" + c.placement
	if c.participants == driver.Goroutines {
		k = c.impl.name + "/" + driver.Goroutines
	}
	if c.gap > 0 {
		k += "/gap=" + c.gap.String()
	}
	if c.sweep {
		k += fmt.Sprintf("/procs=%d", c.procs)
	}
	return k
}

// Validate checks every option without measuring anything: counts,
// gaps, implementation names (unknown: the valid names; unavailable here:
// why), the lot parker and the placements this machine can do. Errors are
// *driver.OptionError naming the field.
func (o LatencyOptions) Validate() error { return driver.Check(planLatency(o)) }

// latencyPlan is a validated latency run: its configurations in run order,
// what was skipped, and the lot's parker resolved.
type latencyPlan struct {
	o               LatencyOptions
	configs         []latencyConfig
	warnings, notes []string
	lot             parkers.Backend
}

// planLatency validates every option and lists the configurations, before
// anything is measured.
func planLatency(o LatencyOptions) (*latencyPlan, error) {
	if err := driver.CheckProcs("GOMAXPROCS", o.GOMAXPROCS); err != nil {
		return nil, err
	}
	participants, err := driver.ResolveParticipants("Participants", o.Participants)
	if err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field, what string
		v, min, max int
	}{{"Rounds", "rounds", o.Rounds, 1, MaxRounds},
		{"Iterations", "iterations", o.Iterations, 1, MaxIterations}, {"Warmup", "warmup", o.Warmup, 0, MaxWarmup},
		{"GapIterations", "gap iterations", o.GapIterations, 1, MaxIterations}, {"GapWarmup", "gap warmup", o.GapWarmup, 0, MaxWarmup}} {
		if err := driver.CheckCount(c.field, c.what, c.v, c.min, c.max); err != nil {
			return nil, err
		}
	}
	gaps := o.Gaps
	if len(gaps) == 0 {
		gaps = []time.Duration{0}
	}
	for _, g := range gaps {
		if g < 0 || g > MaxGap {
			return nil, driver.Bad("Gaps", "invalid gap %v: must be between 0 and %v", g, MaxGap)
		}
	}
	if o.Anatomy {
		if slices.Contains(participants, driver.Goroutines) {
			return nil, driver.Bad("Anatomy", "follows the two participants' threads, which --participants=goroutines does not keep: use --participants=threads")
		}
		if err := driver.CheckAnatomy(); err != nil {
			return nil, err
		}
	}
	places, explicitPlace, err := driver.ResolvePlacements("Placements", o.Placements)
	if err != nil {
		return nil, err
	}
	lotBackend, err := driver.LotParker("LotParker", o.LotParker)
	if err != nil {
		return nil, err
	}
	p := &latencyPlan{o: o, lot: lotBackend}
	procs := driver.ProcsOrDefault(o.GOMAXPROCS)
	sweep := len(o.GOMAXPROCS) > 1
	var sel driver.Selection[e12Impl]
	for _, part := range participants {
		s, err := p.resolveFor(part, participants)
		if err != nil {
			return nil, err
		}
		if part == driver.Goroutines {
			p.planGoroutines(s, gaps, procs, sweep)
			continue
		}
		sel = s
	}
	if !slices.Contains(participants, driver.Threads) {
		return p, nil
	}
	single := driver.SingleCPU()
	if single {
		p.notes = append(p.notes, "this process may use one CPU only: nothing crosses cores, the busy-wait implementations are not run (their figures would not be a floor), and the spin-floor claim is not evaluated")
	}
	if why := driver.PinBlocked(); why != "" && !slices.Contains(places, driver.CrossCore) && !slices.Contains(places, driver.SameCore) {
		// Quick runs ask for unpinned alone here: say why cross-core is
		// missing (a run over every placement warns per placement below).
		p.warnings = append(p.warnings, "cross-core and same-core not run, threads unpinned: "+why)
	}
	for _, pl := range places {
		cpus, msg := driver.PairCPUs(pl)
		if msg != "" {
			if explicitPlace[pl] {
				return nil, driver.Bad("Placements", "placement %s: %s", pl, msg)
			}
			p.warnings = append(p.warnings, pl+" skipped: "+msg)
			continue
		}
		var busy []string
		why := "two busy-waiting threads on one CPU measure the scheduler's time slice, not a wake"
		if single {
			why = "this process may use one CPU only, and " + why
		}
		for _, im := range sel.Items {
			if (pl == driver.SameCore || single) && im.busy {
				if explicitPlace[pl] && sel.Explicit {
					return nil, driver.Bad("Placements", "%s at %s is not run: %s", im.name, pl, why)
				}
				busy = append(busy, im.name)
				continue
			}
			for _, g := range gaps {
				for _, pr := range procs {
					c := latencyConfig{impl: im, placement: pl, gap: g, warmup: o.Warmup, n: o.Iterations, rounds: o.Rounds, cpus: cpus,
						participants: driver.Threads, procs: pr, sweep: sweep}
					if g > 0 {
						c.warmup, c.n = o.GapWarmup, o.GapIterations
					}
					p.configs = append(p.configs, c)
				}
			}
		}
		// By design, not a fault: one note per placement.
		if len(busy) > 0 {
			p.notes = append(p.notes, fmt.Sprintf("%s not run for the busy-waiting %s: %s", pl, strings.Join(busy, ", "), why))
		}
	}
	return p, nil
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

// resolve reads the implementation names and the lot's parker, as both
// experiments take them.
func resolve(c driver.Catalog[e12Impl], names []string, lotParker string) (driver.Selection[e12Impl], parkers.Backend, error) {
	sel, err := c.Resolve("Impls", names)
	if err != nil {
		return sel, parkers.Backend{}, err
	}
	b, err := driver.LotParker("LotParker", lotParker)
	return sel, b, err
}

// resolveFor reads the implementation names for one kind of participants
// (all: the participants of every kind). A goroutine-only name given for a
// run with threads too is left to the goroutines (a note says so); with
// threads alone it is refused with the reason.
func (p *latencyPlan) resolveFor(part string, all []string) (driver.Selection[e12Impl], error) {
	names := p.o.Impls
	if part == driver.Threads {
		names = nil
		for _, n := range p.o.Impls {
			if !slices.ContainsFunc(goroutineImpls(), func(im e12Impl) bool { return im.name == n }) {
				names = append(names, n)
				continue
			}
			if !slices.Contains(all, driver.Goroutines) {
				return driver.Selection[e12Impl]{}, driver.Bad("Impls", "implementation %q is %s", n, goroutinesOnlyWhy)
			}
			p.notes = append(p.notes, n+": goroutines only (not run between threads)")
		}
		if len(names) == 0 && len(p.o.Impls) > 0 {
			return driver.Selection[e12Impl]{}, nil
		}
	}
	sel, err := participantCatalog(part).Resolve("Impls", names)
	if err != nil {
		return sel, err
	}
	if part == driver.Goroutines {
		p.warnings = append(p.warnings, driver.CollapseThreadsOnly(sel.Warnings)...)
	} else {
		p.warnings = append(p.warnings, sel.Warnings...)
	}
	p.notes = append(p.notes, sel.Notes...)
	return sel, nil
}

// planGoroutines adds the goroutine configurations: each implementation
// once per GOMAXPROCS (no placement: plain goroutines are not pinned; no
// gap: the gap is a sleep of the waker's own thread, and a goroutine has
// none).
func (p *latencyPlan) planGoroutines(sel driver.Selection[e12Impl], gaps []time.Duration, procs []int, sweep bool) {
	if slices.ContainsFunc(gaps, func(g time.Duration) bool { return g > 0 }) {
		p.warnings = append(p.warnings, "goroutines: gaps above 0 not run (the gap is a sleep of the waker's own thread; a plain goroutine has none)")
	}
	for _, im := range sel.Items {
		for _, pr := range procs {
			p.configs = append(p.configs, latencyConfig{impl: im, placement: driver.Unpinned, warmup: p.o.Warmup, n: p.o.Iterations, rounds: p.o.Rounds,
				cpus: [2]int{-1, -1}, participants: driver.Goroutines, procs: pr, sweep: sweep})
		}
	}
}

func participantsParam(p string) string {
	if p == "" {
		return driver.Threads
	}
	return p
}
