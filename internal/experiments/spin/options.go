package spin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/osthread"
)

// Options configure the spin experiment.
type Options struct {
	// Impls are the library strategies and the competitive rule (ImplNames;
	// a plugin's locks too), "all" or empty: every one that runs here.
	Impls []string `flag:"impl" opt:"impl" help:"strategies beside the fixed budgets: a name, a comma list, or all ({ImplNames})"`
	// Budgets are the fixed budgets, each a row: 0 parks at once,
	// Unbounded never parks (echoed by hand: "unbounded").
	Budgets Budgets `flag:"budgets" help:"fixed spin budgets, a comma list: durations 0..{MaxBudget} (0 parks at once) or unbounded (never parks)"`
	// Gaps are the times from the waiter's start to the waker's signal,
	// each a set of configurations.
	Gaps []time.Duration `flag:"gaps" opt:"gaps" help:"the waiter's start -> the waker's signal, a comma list of durations 0..{MaxGap}"`
	// Placements: cross-core (waiter and waker on two CPUs) and
	// oversubscribed (both on one CPU: two threads, one CPU), or all.
	Placements []string `flag:"placement" opt:"placement" help:"cross-core (two CPUs), oversubscribed (both threads on one CPU), a comma list, or all"`
	// Waits are the measured waits of one configuration per round; Warmup
	// those before them, not recorded.
	Waits  int `flag:"waits" opt:"waits" help:"measured waits per configuration and round, 1..{MaxWaits}"`
	Warmup int `flag:"warmup" opt:"warmup" help:"waits before them, not recorded"`
	// Rounds per configuration, interleaved: round 1 of every
	// configuration of a placement, then round 2, ...
	Rounds int `flag:"rounds" opt:"rounds" help:"rounds per configuration, interleaved, 1..{MaxRounds}"`
	// PingPong is the round trips of the park+wake ping-pong that
	// measures the competitive budget, per round.
	PingPong int `flag:"pingpong" opt:"pingpong" help:"round trips of each round's park + wake ping-pong (the competitive budget)"`
}

// Budgets are fixed spin budgets. As --budgets' items they read and show
// as a duration or "unbounded" (ParseItem, FormatItem).
type Budgets []time.Duration

// ParseItem reads one --budgets item (ParseBudget).
func (Budgets) ParseItem(s string) (time.Duration, error) { return ParseBudget(s) }

// FormatItem spells one budget (BudgetLabel).
func (Budgets) FormatItem(b time.Duration) string { return BudgetLabel(b) }

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"MaxBudget": MaxBudget,
		"MaxGap":    MaxGap,
		"MaxWaits":  MaxWaits,
		"MaxRounds": MaxRounds,
	}
}

// Placements.
const (
	CrossCore      = driver.CrossCore
	Oversubscribed = "oversubscribed"
)

// PlacementNames are the placements in run order.
var PlacementNames = []string{CrossCore, Oversubscribed}

// Bounds of the options. A wait must end well within the watchdog's period
// (WatchdogPeriod) after its signal is due, so gaps and budgets stop at
// MaxGap; the run as a whole must fit MaxRunTime by its own estimate.
const (
	MaxGap     = 100 * time.Millisecond
	MaxBudget  = 100 * time.Millisecond
	MaxWaits   = 100_000
	MaxRounds  = 100
	MaxPing    = 100_000
	MaxRunTime = 30 * time.Minute
)

// WatchdogPeriod: a job in which no wait ends for this long has lost a
// wakeup (the longest wait is MaxGap plus a wake). A variable for the
// package's tests, which lose wakeups on purpose.
var WatchdogPeriod = 2 * time.Second

// DefaultOptions: nine fixed budgets from 0 to unbounded and every
// library row, at five gaps from well below to well above a wake on the
// machines this project runs on (7-30 µs across CPUs), both placements,
// 200 waits x 3 rounds.
func DefaultOptions() Options {
	us := time.Microsecond
	return Options{
		Impls:      []string{driver.All},
		Budgets:    []time.Duration{0, 1 * us, 2 * us, 4 * us, 8 * us, 16 * us, 32 * us, 64 * us, 128 * us, Unbounded},
		Gaps:       []time.Duration{1 * us, 4 * us, 16 * us, 64 * us, 256 * us},
		Placements: []string{driver.All},
		Waits:      200,
		Warmup:     20,
		Rounds:     3,
		PingPong:   300,
	}
}

// QuickOptions: five budgets, three gaps, 50 waits x 3 rounds.
func QuickOptions() Options {
	o := DefaultOptions()
	us := time.Microsecond
	o.Budgets = []time.Duration{0, 4 * us, 16 * us, 64 * us, Unbounded}
	o.Gaps = []time.Duration{2 * us, 16 * us, 128 * us}
	o.Waits, o.Warmup, o.PingPong = 50, 10, 100
	return o
}

// Validate checks o without measuring. Errors are *driver.OptionError.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// echo is the options as the result records them.
func (o Options) echo(rows []row) map[string]string {
	m := driver.Echo(o)
	var bs, names []string
	for _, b := range o.Budgets {
		bs = append(bs, BudgetLabel(b))
	}
	for _, r := range rows {
		if r.name != RowFixed {
			names = append(names, r.name)
		}
	}
	m["budgets"] = joinOr(bs, "none")
	m["impl"] = joinOr(names, "none")
	return m
}

func joinOr(s []string, none string) string {
	if len(s) == 0 {
		return none
	}
	out := s[0]
	for _, x := range s[1:] {
		out += "," + x
	}
	return out
}

// spinPlan is a validated run.
type spinPlan struct {
	o          Options
	rows       []row // fixed budgets, then the named rows
	placements []string
	warnings   []string
}

func plan(o Options) (*spinPlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	names, err := o.placementNames()
	if err != nil {
		return nil, err
	}
	// The run's length, from what was asked (before anything is looked up
	// on this machine, so that the refusal reads the same everywhere).
	named := len(o.Impls)
	if named == 0 || slices.Contains(o.Impls, driver.All) {
		named = len(catalog().Items)
	}
	rows := len(o.Budgets) + named
	if est := o.estimate(rows, len(names)); est > MaxRunTime {
		return nil, driver.Bad("Gaps", "the run needs at least %v (the gaps x waits x rounds x %d strategies x %d placements), more than its limit of %v: "+
			"lower --waits, --rounds or the gaps", est.Round(time.Minute), rows, len(names), MaxRunTime)
	}
	p := &spinPlan{o: o}
	for _, b := range sortBudgets(o.Budgets) {
		p.rows = append(p.rows, fixedRow(b))
	}
	sel, err := catalog().Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	if len(o.Budgets) == 0 && len(sel.Items) == 0 {
		return nil, driver.Bad("Budgets", "nothing to run: give a budget or a strategy")
	}
	if err := driver.NeedFutex(); err != nil {
		return nil, driver.Bad("Impls", "no strategy runs here: %v", err)
	}
	p.rows = append(p.rows, sel.Items...)
	p.warnings = append(p.warnings, sel.Warnings...)
	p.warnings = append(p.warnings, sel.Notes...)
	if len(sel.Unavailable) > 0 {
		p.warnings = append(p.warnings, "not run here: "+strings.Join(sel.Unavailable, "; "))
	}
	if err := p.resolvePlacements(names); err != nil {
		return nil, err
	}
	return p, nil
}

// validateCounts checks what needs no look at the machine: budgets and
// gaps are durations of at least 0 and at most MaxBudget / MaxGap (a wait
// longer than that would take the watchdog's period), each given once.
func (o Options) validateCounts() error {
	for _, b := range o.Budgets {
		if b != Unbounded && (b < 0 || b > MaxBudget) {
			return driver.Bad("Budgets", "invalid budget %v: must be between 0 and %v, or unbounded (a longer spin would outlast the watchdog's %v)", b, MaxBudget, WatchdogPeriod)
		}
	}
	if _, again, dup := driver.Repeat(o.Budgets); dup {
		return driver.Bad("Budgets", "budget %s given twice; each is one row", BudgetLabel(o.Budgets[again]))
	}
	if err := driver.CheckDurations("Gaps", "gap", o.Gaps, 0, MaxGap); err != nil {
		return err
	}
	if _, again, dup := driver.Repeat(o.Gaps); dup {
		return driver.Bad("Gaps", "gap %v given twice; each is one set of configurations", o.Gaps[again])
	}
	for _, c := range []struct {
		field, what string
		v, lo, hi   int
	}{
		{"Waits", "waits", o.Waits, 1, MaxWaits},
		{"Warmup", "warmup", o.Warmup, 0, MaxWaits},
		{"Rounds", "rounds", o.Rounds, 1, MaxRounds},
		{"PingPong", "ping-pong round trips", o.PingPong, 10, MaxPing},
	} {
		if err := driver.CheckCount(c.field, c.what, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	return nil
}

// placementNames expands all (or none) and refuses unknown names.
func (o Options) placementNames() ([]string, error) {
	names := o.Placements
	if len(names) == 0 || slices.Contains(names, driver.All) {
		return PlacementNames, nil
	}
	for _, n := range names {
		if err := driver.CheckChoiceOrAll("Placements", "placement", n, PlacementNames); err != nil {
			return nil, err
		}
	}
	return names, nil
}

// resolvePlacements pins what this machine can: cross-core needs two
// CPUs; with one, it is not run and a warning says that oversubscribed
// (both threads on that CPU) ran instead.
func (p *spinPlan) resolvePlacements(names []string) error {
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		return driver.Bad("Placements", "cannot pin the waiter and the waker here: %v", err)
	}
	for _, n := range PlacementNames {
		if !slices.Contains(names, n) {
			continue
		}
		if n == CrossCore && len(cpus) < 2 {
			w := fmt.Sprintf("cross-core needs two CPUs and this process may use only CPU %d: the waiter and the waker ran on it together (oversubscribed) instead", cpus[0])
			p.warnings = append(p.warnings, w)
			if !slices.Contains(names, Oversubscribed) {
				p.placements = append(p.placements, Oversubscribed)
			}
			continue
		}
		p.placements = append(p.placements, n)
	}
	return nil
}

// estimate is the least time a run of rows strategies in placements takes:
// every wait lasts its gap and a few µs of handshake, and each round's
// ping-pong two wakes per trip.
func (o Options) estimate(rows, placements int) time.Duration {
	var perRound time.Duration
	for _, g := range o.Gaps {
		perRound += time.Duration(o.Waits+o.Warmup) * (g + 5*time.Microsecond) * time.Duration(rows)
	}
	perRound += time.Duration(o.PingPong) * 20 * time.Microsecond
	return perRound * time.Duration(o.Rounds) * time.Duration(placements)
}
