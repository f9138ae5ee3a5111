package selfwake

import (
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Options configures the reverse check.
type Options struct {
	// Impls are implementation names (as latency's; "all" adds the
	// syscall reference row).
	Impls []string `flag:"impl" opt:"impls" placeholder:"NAME" help:"implementations: NAME, a comma list, or all ({ImplNames})"`
	// Pairs per sample (timed together), Samples per round, Rounds.
	Pairs   int `flag:"pairs" opt:"pairs" help:"wake-then-wait pairs per timed sample"`
	Samples int `flag:"samples" opt:"samples" help:"samples per round"`
	Rounds  int `flag:"rounds" opt:"rounds" help:"rounds"`
	// LotParker is the parker under impl lot ("": current).
	LotParker string `flag:"lot-parker" opt:"lot_parker" help:"parker backend under impl lot (default: the platform default)"`
	// Participants: threads (the default), goroutines (a plain goroutine
	// wakes itself: chan, cond, lot and the syscall row), or both.
	Participants []string `flag:"participants" opt:"participants,empty=threads" help:"who wakes itself: threads (a goroutine locked to its thread, pinned), goroutines (a plain one), a comma list, or all"`
}

// Limits of the selfwake counts.
const (
	MaxPairs   = 1_000_000
	MaxSamples = 10_000_000
)

// DefaultOptions is the study's method: 100 pairs per sample, 1000
// samples, three rounds, every implementation.
func DefaultOptions() Options {
	return Options{Impls: []string{latency.ImplAll}, Pairs: 100, Samples: 1000, Rounds: 3}
}

// QuickOptions is a short run (200 samples).
func QuickOptions() Options {
	o := DefaultOptions()
	o.Samples = 200
	return o
}

// selfwakeImpl is one planned row.
type selfwakeImpl struct {
	latency.Impl // cmode is set for the C reference rows (run by cref.Selfwake)
	// goroutines: the participant is a plain goroutine (not locked, not
	// pinned).
	goroutines bool
}

// Validate checks every option without measuring anything (as
// LatencyOptions.Validate).
func (o Options) Validate() error { return driver.Check(planSelfwake(o)) }

// selfwakePlan is a validated selfwake run.
type selfwakePlan struct {
	o               Options
	impls           []selfwakeImpl
	warnings, notes []string
	lot             parkers.Backend
}

func planSelfwake(o Options) (*selfwakePlan, error) {
	for _, c := range []struct {
		field string
		v, hi int
	}{{"Pairs", o.Pairs, MaxPairs}, {"Samples", o.Samples, MaxSamples}, {"Rounds", o.Rounds, latency.MaxRounds}} {
		if err := driver.CheckCount(c.field, strings.ToLower(c.field), c.v, 1, c.hi); err != nil {
			return nil, err
		}
	}
	parts, err := driver.ResolveParticipants("Participants", o.Participants)
	if err != nil {
		return nil, err
	}
	p := &selfwakePlan{o: o}
	for _, part := range parts {
		c := driver.ForParticipants(catalog(), part, func(im latency.Impl) string {
			if im.Name() == ImplSyscall {
				return ""
			}
			return latency.ThreadsOnly(im)
		})
		sel, lotBackend, err := latency.Resolve(c, o.Impls, o.LotParker)
		if err != nil {
			return nil, err
		}
		p.lot = lotBackend
		if part == driver.Goroutines {
			p.warnings = append(p.warnings, driver.CollapseThreadsOnly(sel.Warnings)...)
		} else {
			p.warnings, p.notes = append(p.warnings, sel.Warnings...), append(p.notes, sel.Notes...)
		}
		for _, im := range sel.Items {
			p.impls = append(p.impls, selfwakeImpl{Impl: im, goroutines: part == driver.Goroutines})
		}
	}
	return p, nil
}

// participants is a row's participants.
func (im selfwakeImpl) participants() string { return driver.KindOf(im.goroutines) }
