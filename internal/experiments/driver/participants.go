package driver

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/parkbench/parkbench/internal/osthread"
)

// Participants: what runs an experiment's sides.
const (
	// Threads are goroutines locked to their OS threads for their whole
	// life (osthread.Go): the study's participants, the default.
	Threads = "threads"
	// Goroutines are plain goroutines: not locked, no affinity, under
	// the GOMAXPROCS given. A wake between them goes through the Go
	// scheduler's ready/runqput/wakep (docs/experiments.md).
	Goroutines = "goroutines"
	// MaxProcs bounds a --gomaxprocs value.
	MaxProcs = 256
)

// ParticipantKinds lists the participants in run order.
var ParticipantKinds = []string{Threads, Goroutines}

// ResolveParticipants reads a list of participants for field (an empty
// list: threads alone, so every figure measured before the option keeps
// its meaning; All: both). Unknown names and a name given twice are
// refused. The result is in run order.
func ResolveParticipants(field string, names []string) ([]string, error) {
	if len(names) == 0 {
		return []string{Threads}, nil
	}
	want := map[string]bool{}
	for _, n := range names {
		if err := CheckChoiceOrAll(field, "participants", n, ParticipantKinds); err != nil {
			return nil, err
		}
		switch {
		case n == All:
			want[Threads], want[Goroutines] = true, true
		case want[n]:
			return nil, Bad(field, "participants %q are named twice; give them once", n)
		default:
			want[n] = true
		}
	}
	var out []string
	for _, p := range ParticipantKinds {
		if want[p] {
			out = append(out, p)
		}
	}
	return out, nil
}

// CheckProcs refuses a GOMAXPROCS value outside 1..MaxProcs and one given
// twice (each is one configuration). An empty list is the tool's own
// choice.
func CheckProcs(field string, procs []int) error {
	for i, p := range procs {
		if err := CheckCount(field, "gomaxprocs", p, 1, MaxProcs); err != nil {
			return err
		}
		if slices.Contains(procs[:i], p) {
			return Bad(field, "gomaxprocs %d is named twice; each is one configuration, give it once", p)
		}
	}
	return nil
}

// ProcsOrDefault is the GOMAXPROCS sweep: procs, or {0} (the run's own
// setting) when none is given.
func ProcsOrDefault(procs []int) []int {
	if len(procs) == 0 {
		return []int{0}
	}
	return procs
}

// WithProcs runs fn with GOMAXPROCS set to procs (0: as it is) and puts the
// previous value back when fn returns, also on error: a configuration's
// setting never leaks into the next. It returns the value fn ran under.
// GOMAXPROCS stops the world: call it between rounds, never inside one.
func WithProcs(procs int, fn func() error) (int, error) {
	if procs <= 0 {
		return runtime.GOMAXPROCS(0), fn()
	}
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	return procs, fn()
}

// CollapseThreadsOnly turns the warnings of a goroutine selection under
// All into one line for the items skipped because they need a locked
// thread (their reasons are in parkbench list and in the refusal of each
// name), keeping every other warning as it is.
func CollapseThreadsOnly(warnings []string) []string {
	var names, out []string
	for _, w := range warnings {
		if name, _, ok := strings.Cut(w, " skipped: not available here: "+goroutinesWhy); ok {
			names = append(names, name)
			continue
		}
		out = append(out, "goroutines: "+w)
	}
	if len(names) > 0 {
		out = append(out, "goroutines: skipped, they need a locked thread or run outside Go (named alone, each is refused with its reason): "+strings.Join(names, ", "))
	}
	return out
}

// goroutinesWhy starts the reason ForParticipants gives.
const goroutinesWhy = "with goroutines as participants: "

// ForParticipants is c as the participants see it: under Goroutines an
// item whose threadsOnly reason is not "" does not run, whatever else
// keeps it from running here (Resolve refuses
// it by name with that reason and skips it under All with a warning);
// under Threads c is returned as it is.
func ForParticipants[T any](c Catalog[T], participants string, threadsOnly func(T) string) Catalog[T] {
	if participants != Goroutines {
		return c
	}
	info := c.Info
	c.Info = func(it T) ImplInfo {
		in := info(it)
		// Before any reason of this machine: it would not run between
		// goroutines on any.
		if why := threadsOnly(it); why != "" {
			in.Why = goroutinesWhy + why
		}
		return in
	}
	return c
}

// ResolveByParticipants resolves names once per kind of participants the
// options ask for (ResolveParticipants on field "Participants", so in
// ParticipantKinds' order: threads first), each kind over the catalog it
// allows (ForParticipants), and joins the selections. mark turns each
// chosen item of kind part into the item that runs, or leaves it out
// (false); parts are all the kinds asked for. The goroutine kind's
// threads-only warnings are collapsed into one line; the notes of each
// kind are kept; Explicit is the last kind's.
func ResolveByParticipants[T any](participants, names []string, c Catalog[T], threadsOnly func(T) string, mark func(parts []string, part string, it T) (T, bool)) (Selection[T], error) {
	parts, err := ResolveParticipants("Participants", participants)
	if err != nil {
		return Selection[T]{}, err
	}
	var out Selection[T]
	for _, part := range parts {
		sel, err := ForParticipants(c, part, threadsOnly).Resolve("Impls", names)
		if err != nil {
			return out, err
		}
		for _, it := range sel.Items {
			if it, ok := mark(parts, part, it); ok {
				out.Items = append(out.Items, it)
			}
		}
		if part == Goroutines {
			out.Warnings = append(out.Warnings, CollapseThreadsOnly(sel.Warnings)...)
		} else {
			out.Warnings = append(out.Warnings, sel.Warnings...)
		}
		out.Notes = append(out.Notes, sel.Notes...)
		out.Explicit = sel.Explicit
	}
	return out, nil
}

// KeyName is an implementation's name as a configuration key names it:
// name, or name/goroutines when it runs on plain goroutines.
func KeyName(name string, goroutines bool) string {
	if goroutines {
		return name + "/" + Goroutines
	}
	return name
}

// KindOf is the kind of participants an implementation runs on:
// Goroutines or Threads.
func KindOf(goroutines bool) string {
	if goroutines {
		return Goroutines
	}
	return Threads
}

// Start runs f as a participant of the kind asked for, counted in wg: on a
// plain goroutine (goroutines), else on an OS thread of its own
// (osthread.Go, which retires the thread after f).
func Start(wg *sync.WaitGroup, goroutines bool, f func()) {
	wg.Add(1)
	osthread.Start(goroutines, func() { defer wg.Done(); f() })
}
