package herd

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Options are E6's options.
type Options struct {
	// Impls are implementation names (see ImplNames), or "all"; empty
	// means all: every implementation available here.
	Impls []string `flag:"impl" help:"implementations: a name, a comma list, or all available (names: {ImplNames})"`
	// Waiters is the sweep of N.
	Waiters []int `flag:"waiters" opt:"waiters" help:"N, or a comma list of N, each 1..{MaxWaiters}"`
	// Participants: threads (waiters and notifier locked to their
	// threads; sync's are goroutines, as always), goroutines (every Go
	// implementation between plain goroutines, unpinned, at GOMAXPROCS =
	// NumCPU as sync), or both (goroutines.go).
	Participants []string `flag:"participants" help:"who waits and notifies: threads (locked threads; sync: goroutines), goroutines (every Go implementation on plain goroutines), a comma list, or all"`
	// Hold is how long each waiter holds the mutex (busy-waiting on the
	// monotonic clock) once it has it.
	Hold time.Duration `flag:"hold" opt:"hold" help:"how long each waiter holds the mutex, busy-waiting on the monotonic clock"`
	// Notify lists the notify modes: "notify-all" (one notify_all) and/or
	// "one-loop" (N x notify_one). "all", notify-all's name before it was
	// renamed (every other list reads "all" as every value), is accepted
	// with a warning for one release (ModeAllDeprecated).
	Notify []string `flag:"notify" opt:"notify" help:"notify mode: notify-all (one notify_all), one-loop (N x notify_one), or both as a comma list (all: notify-all's deprecated name)"`
	// LockHeld lists whether the notifier holds the mutex while notifying
	// (true: parking_lot's RequeueAll branch; false: UnparkOneRequeueRest).
	LockHeld []bool `flag:"lock-held" opt:"lock-held" help:"notify with the mutex held (true), released (false), or both (true,false)"`
	// Repeats is the number of repeats per configuration, each with fresh
	// threads.
	Repeats int `flag:"repeats" opt:"repeats" help:"repeats per configuration, fresh threads each"`
	// Placements: unpinned, same-core, cross-core, or "all" (empty: all),
	// every placement this machine can pin.
	Placements []string `flag:"placement" opt:"placement" help:"unpinned, same-core, cross-core, a comma list, or all"`
	// Mode is ModeHerd (every waiter has work: E6) or ModeIdle (an idle
	// pool: one item of work per notify; idle.go).
	Mode string `flag:"mode" opt:"mode,omitempty" help:"herd (every waiter has work: E6) or idle (an idle pool: one item per notify; notify_one, notify_all and requeue side by side)"`
	// Requests are the items each repeat of the idle pool serves.
	Requests int `flag:"requests" opt:"requests,omitempty" help:"idle: requests each repeat's pool serves, 1..{MaxRequests}"`
	// Anatomy traces every repeat of a thread implementation
	// (sched_switch, the waiters' TIDs) and counts per notify the waiters
	// that slept again before they held the mutex (anatomy.go,
	// docs/anatomy.md). Linux only, as root.
	Anatomy bool `flag:"anatomy" opt:"anatomy,omitempty" help:"trace every repeat (sched_switch of the waiters) and count per notify the waiters that slept again before holding the mutex (Linux, root; docs/anatomy.md)"`
}

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"MaxWaiters":  MaxWaiters,
		"MaxRequests": MaxRequests,
	}
}

// Herd notify modes and placements.
const (
	ModeAll     = "notify-all"
	ModeOneLoop = "one-loop"
	// ModeAllDeprecated is ModeAll's old name, accepted with a warning
	// (plan) and upgraded in older result files (results.Decode).
	ModeAllDeprecated = "all"
)

// NotifyModes are the accepted notify modes; placements are
// driver.Placements.
var NotifyModes = []string{ModeAll, ModeOneLoop}

// Bounds of the options.
const (
	MaxWaiters = 4096
	MaxRepeats = 1000
)

// DefaultOptions is the study's E6: N = 1, 4, 16, 64, 20 us holds, one
// notify_all with the mutex held, 5 repeats, unpinned.
func DefaultOptions() Options {
	return Options{
		Impls:      []string{driver.All},
		Waiters:    []int{1, 4, 16, 64},
		Hold:       20 * time.Microsecond,
		Notify:     []string{ModeAll},
		LockHeld:   []bool{true},
		Repeats:    5,
		Placements: []string{driver.Unpinned},
		Mode:       ModeHerd,
		Requests:   30,
	}
}

// QuickOptions is a short run: N = 1, 16, 64, 3 repeats.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Waiters = []int{1, 16, 64}
	o.Repeats = 3
	return o
}

// Validate checks o without measuring anything: counts, modes, placements
// this machine can do, and implementation names (unknown: the valid names;
// unavailable: why). Errors are *driver.OptionError.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// herdPlan is a validated herd run: the implementations and the
// placements that run, and what was skipped.
type herdPlan struct {
	o Options
	driver.Selection[implSpec]
	placements []string
}

// plan validates o and resolves its names: "all" (or an empty list) is
// every implementation, every placement this machine can pin; a named one
// that cannot run is an *driver.OptionError, one skipped under "all" a
// warning.
func plan(o Options) (*herdPlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	o, err := o.withMode()
	if err != nil {
		return nil, err
	}
	sel, err := resolveParticipants(o)
	if err != nil {
		return nil, err
	}
	places, explicit, err := driver.ResolvePlacements("Placements", o.Placements)
	if err != nil {
		return nil, err
	}
	if o.Anatomy {
		if err := driver.CheckAnatomy(); err != nil {
			return nil, err
		}
	}
	p := &herdPlan{o: o, Selection: sel}
	p.o.Notify, p.Warnings = upgradeNotify(o.Notify, p.Warnings)
	for _, pl := range places {
		if _, _, err := driver.GroupCPUs("Placements", pl, 1); err != nil {
			if explicit[pl] {
				return nil, err
			}
			p.Warnings = append(p.Warnings, fmt.Sprintf("%s skipped: %v", pl, err))
			continue
		}
		p.placements = append(p.placements, pl)
	}
	runnable := false
	for _, im := range p.Items {
		runnable = runnable || !im.goroutines || slices.Contains(p.placements, driver.Unpinned)
	}
	if !runnable {
		return nil, driver.Bad("Placements", "nothing to run: sync (goroutines) cannot be pinned, and no other implementation was chosen")
	}
	return p, nil
}

// validateCounts checks what needs no look at the machine.
func (o Options) validateCounts() error {
	if err := driver.CheckCounts("Waiters", "waiter count", o.Waiters, 1, MaxWaiters); err != nil {
		return err
	}
	if o.Hold < 0 || o.Hold > time.Second {
		return driver.Bad("Hold", "invalid hold %v: must be between 0 and 1s", o.Hold)
	}
	if err := driver.CheckCount("Repeats", "repeats", o.Repeats, 1, MaxRepeats); err != nil {
		return err
	}
	for _, c := range []struct {
		field string
		n     int
	}{{"Notify", len(o.Notify)}, {"LockHeld", len(o.LockHeld)}} {
		if c.n == 0 {
			return driver.Bad(c.field, "%s: give at least one value", strings.ToLower(c.field))
		}
	}
	seen := map[string]bool{}
	for _, m := range o.Notify {
		if m != ModeAllDeprecated {
			if err := driver.CheckChoice("Notify", "notify mode", m, NotifyModes); err != nil {
				return err
			}
		}
		if m == ModeAllDeprecated {
			m = ModeAll
		}
		if seen[m] {
			return driver.Bad("Notify", "notify mode %s given twice (%q is its deprecated name)", m, ModeAllDeprecated)
		}
		seen[m] = true
	}
	return nil
}

// upgradeNotify replaces the deprecated "all" by "notify-all", with a
// warning; notify is not modified.
func upgradeNotify(notify, warnings []string) ([]string, []string) {
	if !slices.Contains(notify, ModeAllDeprecated) {
		return notify, warnings
	}
	out := slices.Clone(notify)
	for i, m := range out {
		if m == ModeAllDeprecated {
			out[i] = ModeAll
		}
	}
	return out, append(warnings, fmt.Sprintf("--notify %s is deprecated (kept for one release): use %s", ModeAllDeprecated, ModeAll))
}
