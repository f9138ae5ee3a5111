package timeout

import (
	"errors"
	"fmt"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Options configures Run.
type Options struct {
	// Impls are the mechanisms to measure (see ImplNames; "lot" is the
	// three lot-* ones); empty or "all" means every one available here
	// (unavailable ones are skipped with a warning).
	Impls []string `flag:"impl" opt:"impl" placeholder:"NAME" help:"mechanisms to measure: NAME, a comma list, lot (the three lot-* ones), or all ({ImplNames})"`
	// Deadlines are the timeouts, each in (0, 10 s].
	Deadlines []time.Duration `flag:"deadlines" opt:"deadlines" help:"comma list of timeouts, each > 0 and <= {MaxDeadline}"`
	// Samples is the number of measured waits per deadline, in [1, 1e6].
	Samples int `flag:"samples" opt:"samples" help:"measured waits per configuration, 1..{MaxSamples}"`
	// Warmup waits per configuration, not recorded.
	Warmup int `opt:"warmup"`
	// Slacks are the timer slacks to run under; 0 means "default" (leave
	// the thread's slack as it is, and record it).
	Slacks Slacks `flag:"timerslack" opt:"timerslack,zero=default" help:"comma list of per-thread timer slacks: \"default\" (leave it) or a duration <= {MaxTimerSlack}"`
	// LotParker is the parker backend under the lot-* mechanisms ("":
	// the lot's current one, the platform default).
	LotParker string `flag:"lot-parker" opt:"lot_parker,omitempty" help:"parker backend under the lot-* mechanisms (default: the platform default)"`
}

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"MaxDeadline":   MaxDeadline,
		"MaxTimerSlack": MaxTimerSlack,
		"MaxSamples":    MaxSamples,
	}
}

// DefaultOptions is the full sweep.
func DefaultOptions() Options {
	return Options{
		Impls:     []string{"all"},
		Deadlines: []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond},
		Samples:   200,
		Warmup:    5,
		Slacks:    defaultSlacks(),
	}
}

// defaultSlacks is "default" and, where timer slack can be set (Linux
// prctl), 1ns: elsewhere 1ns is refused, and the default sweep must run.
func defaultSlacks() []time.Duration {
	if slackSupported {
		return []time.Duration{0, time.Nanosecond}
	}
	return []time.Duration{0}
}

// SlackSupported reports whether a per-thread timer slack can be set here.
func SlackSupported() bool { return slackSupported }

// QuickOptions is the sweep with 50 samples per deadline.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Samples = 50
	o.Warmup = 2
	return o
}

// Limits of the options.
const (
	MaxDeadline   = 10 * time.Second
	MaxSamples    = 1_000_000
	MaxTimerSlack = time.Second
)

// SlackLabel spells a slack option: "default" for 0, else a duration.
func SlackLabel(s time.Duration) string {
	if s == 0 {
		return "default"
	}
	return s.String()
}

// Slacks are timer slacks, 0 for "default". As --timerslack's items they
// read and show as "default" or a duration (ParseItem, FormatItem).
type Slacks []time.Duration

// ParseItem reads one --timerslack item: "default" (0) or a duration; its
// range is Validate's to check.
func (Slacks) ParseItem(s string) (time.Duration, error) {
	if s == "default" {
		return 0, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d != 0 {
		return d, nil
	}
	return 0, errors.New(`want "default" or a duration such as 1ns or 50us`)
}

// FormatItem spells one slack (SlackLabel).
func (Slacks) FormatItem(s time.Duration) string { return SlackLabel(s) }

// ParseSlack reads one --timerslack item: "default" or a positive duration
// up to MaxTimerSlack ("1ns", "50us").
func ParseSlack(s string) (time.Duration, error) {
	if s == "default" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid timer slack %q: want \"default\" or a duration such as 1ns or 50us", s)
	}
	if d <= 0 || d > MaxTimerSlack {
		return 0, fmt.Errorf("invalid timer slack %q: must be > 0 and at most %v (or \"default\")", s, MaxTimerSlack)
	}
	return d, nil
}

// Validate checks every option without measuring anything: counts,
// deadlines, slacks (a slack off Linux is refused), implementation names
// and the lot parker. Errors are *driver.OptionError naming the field.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// timeoutPlan is a validated timeout run.
type timeoutPlan struct {
	o Options
	driver.Selection[mechanism]
	// lot is the parker under the lot-* mechanisms; switched to for the
	// run when LotParker names one.
	lot parkers.Backend
}

func plan(o Options) (*timeoutPlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	b, err := driver.LotParker("LotParker", o.LotParker)
	if err != nil {
		return nil, err
	}
	// The lot's backend first: whether a lot-* wait is kernel-timed
	// depends on it.
	sel, err := catalog(b).Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	return &timeoutPlan{o: o, Selection: sel, lot: b}, nil
}

// validateCounts checks the options that need no knowledge of the machine.
func (o Options) validateCounts() error {
	if err := driver.CheckDurations("Deadlines", "deadline", o.Deadlines, time.Nanosecond, MaxDeadline); err != nil {
		return err
	}
	if err := driver.CheckCount("Samples", "samples", o.Samples, 1, MaxSamples); err != nil {
		return err
	}
	if err := driver.CheckCount("Warmup", "warmup", o.Warmup, 0, MaxSamples); err != nil {
		return err
	}
	if len(o.Slacks) == 0 {
		return driver.Bad("Slacks", "no timer slack given (use \"default\")")
	}
	for _, s := range o.Slacks {
		if s < 0 || s > MaxTimerSlack {
			return driver.Bad("Slacks", "invalid timer slack %v: must be > 0 and at most %v (or \"default\")", s, MaxTimerSlack)
		}
		if s != 0 && !slackSupported {
			return driver.Bad("Slacks", "timer slack %v: timer slack is Linux only (prctl PR_SET_TIMERSLACK); use \"default\" here", s)
		}
	}
	return nil
}
