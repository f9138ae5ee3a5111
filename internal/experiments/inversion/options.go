package inversion

import (
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Bounds of the options.
const (
	MinHold    = time.Microsecond
	MaxHold    = 10 * time.Millisecond
	MinMedium  = 100 * time.Microsecond
	MaxMedium  = 100 * time.Millisecond // bounded: one spin keeps a CPU at RT priority this long at most
	MaxRepeats = 10000
)

// The SCHED_FIFO priorities of the three threads (pi_stress uses low,
// medium and high the same way; any three ordered values do).
const (
	PrioLow    = 10
	PrioMedium = 20
	PrioHigh   = 30
)

// Options are parkbench inversion's options; each field's tags give its
// flag, help and echo key (internal/cli/flags.go).
type Options struct {
	// Impls: locks; empty means every one available.
	Impls []string `flag:"impl" opt:"impl" help:"locks: a name, a comma list, or all ({ImplNames})"`
	// Hold: low's critical section, busy work calibrated to this long on the
	// measured CPU.
	Hold time.Duration `flag:"hold" opt:"hold" help:"low's critical section: busy work calibrated to this long (1us..10ms)"`
	// Medium: medium's spin, bounded by MaxMedium.
	Medium time.Duration `flag:"medium" opt:"medium" help:"medium's spin, bounded (100us..100ms)"`
	// Repeats: rounds per lock; the figure is over all.
	Repeats int `flag:"repeats" opt:"repeats" help:"rounds per lock (1..10000)"`
	// Force: run even with fewer than two usable CPUs (no CPU for the
	// watchdog) or with RT throttling off.
	Force bool `flag:"force" opt:"force" help:"run even without a CPU for the watchdog or with RT throttling off"`
}

// DefaultOptions: every lock, 100 µs critical section, 10 ms medium spin,
// 100 rounds.
func DefaultOptions() Options {
	return Options{
		Impls:   []string{driver.All},
		Hold:    100 * time.Microsecond,
		Medium:  10 * time.Millisecond,
		Repeats: 100,
	}
}

// QuickOptions: 20 rounds of a 2 ms spin.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Medium = 2 * time.Millisecond
	o.Repeats = 20
	return o
}

// Validate checks the options and that the experiment may run here
// (Linux, the privilege, the watchdog's CPU, RT throttling) without
// measuring; errors are *driver.OptionError.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// Plan validates o and returns the run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

// invPlan is a validated run.
type invPlan struct {
	o Options
	driver.Selection[impl]
	host host
}

func plan(o Options) (*invPlan, error) {
	if o.Hold < MinHold || o.Hold > MaxHold {
		return nil, driver.Bad("Hold", "invalid critical section %v: must be between %v and %v", o.Hold, MinHold, MaxHold)
	}
	if o.Medium < MinMedium || o.Medium > MaxMedium {
		return nil, driver.Bad("Medium", "invalid medium spin %v: must be between %v and %v (bounded: it keeps a CPU at RT priority)", o.Medium, MinMedium, MaxMedium)
	}
	if err := driver.CheckCount("Repeats", "repeats", o.Repeats, 1, MaxRepeats); err != nil {
		return nil, err
	}
	h, err := checkHost(o.Force)
	if err != nil {
		return nil, err
	}
	sel, err := catalog(o.Force).Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	return &invPlan{o: o, Selection: sel, host: h}, nil
}
