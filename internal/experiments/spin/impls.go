package spin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
)

// protocol is how a row waits.
type protocol int

const (
	// protoWord: a spin phase of this package on the futex word, then the
	// word's park (word.go).
	protoWord protocol = iota
	// protoMutex: a lock from outside the tree (a plugin's): the waker
	// holds it, the waiter's Lock is the wait, the waker's Unlock the
	// signal.
	protoMutex
	// protoC: glibc's PTHREAD_MUTEX_ADAPTIVE_NP the same way, on two C
	// threads (internal/cref spin.c).
	protoC
)

// The rows' kinds (results.Config.Kind).
const (
	KindBudget = "budget"      // a fixed budget (--budgets)
	KindRule   = "rule"        // the competitive rule: the measured park+wake cost
	KindPort   = "port"        // a library's spin policy, ported
	KindC      = "c-reference" // the real library on C threads
	KindPlugin = "plugin"      // a lock from outside the tree
	KindCost   = "wake-cost"   // the park+wake ping-pong the rule reads
)

// Row names beside the fixed budgets.
const (
	RowFixed       = "fixed"
	RowCompetitive = "competitive"
	RowLot         = "lot-spinwait"
	RowGo          = "go-mutex"
	RowGlibc       = "glibc-adaptive"
	RowCrossbeam   = "crossbeam-backoff"
	RowPingPong    = "pingpong"
)

// row is one strategy of the table.
type row struct {
	name, kind, summary string
	// folklore is the library's own budget, as its source says it.
	folklore    string
	unavailable func() error
	proto       protocol
	// budget is a fixed row's (--budgets).
	budget time.Duration
	// phase builds a protoWord row's spin phase for one job: the round's
	// view of the other Ps (go-mutex) and its competitive budget.
	phase func(otherRunning bool, competitive time.Duration) spinPhase
	// newLock makes a protoMutex row's lock.
	newLock func() ext.Locker
}

// named are the rows --impl chooses from, in run order (the fixed
// budgets come first, from --budgets).
func named() []row {
	rows := []row{
		{name: RowCompetitive, kind: KindRule, proto: protoWord, unavailable: driver.NeedFutex,
			summary:  "Karlin et al. (1991): spin for as long as a park and a wake cost (this run's ping-pong, per round), then park",
			folklore: "the measured park + wake cost",
			phase:    func(_ bool, c time.Duration) spinPhase { return fixedSpin(c) }},
		{name: RowLot, kind: KindPort, proto: protoWord, unavailable: driver.NeedFutex,
			summary:  "parking_lot's mutex: SpinWait (lot's port) while nobody is parked, then park (raw_mutex.rs:229, spinwait.rs:48-59)",
			folklore: "3 rounds of 2, 4, 8 PAUSE, then 7 sched_yield",
			phase:    func(bool, time.Duration) spinPhase { return lotSpin }},
		{name: RowGo, kind: KindPort, proto: protoWord, unavailable: driver.NeedFutex,
			summary:  "Go's sync.Mutex: runtime_canSpin, 4 rounds of procyield(30) while another P runs, then park (internal/sync/mutex.go:104-116)",
			folklore: "4 rounds of 30 PAUSE",
			phase:    func(other bool, _ time.Duration) spinPhase { return goSpin(other) }},
		{name: RowGlibc, kind: KindC, proto: protoC, unavailable: cref.SpinAvailable,
			summary:  "glibc's PTHREAD_MUTEX_ADAPTIVE_NP on C threads: trylock spins up to min(100, 2 x __spins + 10) PAUSE, then futex (nptl/pthread_mutex_lock.c:113-145)",
			folklore: "up to 100 PAUSE (tunable glibc.pthread.mutex_spin_count), adapting"},
		{name: RowCrossbeam, kind: KindPort, proto: protoWord, unavailable: driver.NeedFutex,
			summary:  "crossbeam-utils Backoff: snooze until is_completed, then park (backoff.rs:207-224, 271-273)",
			folklore: "1, 2, ..., 64 PAUSE (127), then 4 yields",
			phase:    func(bool, time.Duration) spinPhase { return crossbeamSpin }},
	}
	for _, x := range ext.All() {
		if x.NewLock == nil {
			continue
		}
		rows = append(rows, row{name: x.Name, kind: KindPlugin, proto: protoMutex, unavailable: driver.NeedFutex,
			summary: "a lock from outside the tree (" + x.Origin + "): the waker holds it, the waiter's Lock is the wait", folklore: "its own",
			newLock: x.NewLock})
	}
	return rows
}

// fixedRow is a fixed budget's row.
func fixedRow(b time.Duration) row {
	return row{name: RowFixed, kind: KindBudget, proto: protoWord, budget: b, unavailable: driver.NeedFutex,
		phase: func(bool, time.Duration) spinPhase { return fixedSpin(b) }}
}

func (r row) info() driver.ImplInfo {
	return driver.ImplInfo{Name: r.name, Kind: r.kind, Summary: r.summary, Why: driver.Why(r.unavailable)}
}

func catalog() driver.Catalog[row] {
	return driver.Catalog[row]{Items: named(), Info: row.info}
}

// Impls describes every row --impl takes.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// ImplNames lists every --impl name.
func ImplNames() []string { return catalog().Names() }

// label is the row's part of a configuration key: the name, and a fixed
// row's budget.
func (r row) label() string {
	if r.name == RowFixed {
		return RowFixed + "/budget=" + BudgetLabel(r.budget)
	}
	return r.name
}

// BudgetLabel spells a budget: a duration, or "unbounded".
func BudgetLabel(b time.Duration) string {
	if b == Unbounded {
		return "unbounded"
	}
	if b == 0 {
		return "0"
	}
	return b.String()
}

// ParseBudget reads one --budgets item: "unbounded" (also "inf") or a
// duration of at least 0.
func ParseBudget(s string) (time.Duration, error) {
	switch strings.ToLower(s) {
	case "unbounded", "inf":
		return Unbounded, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 0, 500ns or 4us, or unbounded")
	}
	return d, nil
}

// sortBudgets orders budgets, unbounded last.
func sortBudgets(bs []time.Duration) []time.Duration {
	out := slices.Clone(bs)
	slices.Sort(out)
	return out
}
