// Package bench runs parkbench's experiments on a Go program's own
// implementations, beside the built-in ones: a token parker, a lock
// (sync.Locker) and a condition variable (what *sync.Cond has). The
// program's main calls Main with its implementations and gets the whole
// parkbench command line: latency, selfwake, timeout and wake take a
// Parker; lock takes a lock; herd and wake take a lock with a condvar.
//
//	func main() {
//		bench.Main(bench.Impl{Name: "mine", Summary: "my parker", Sleeps: true,
//			NewParker: func() bench.Parker { return newMine() }})
//	}
//
//	go run ./mybench latency --impl=mine,futex,c-futex
//
// The thread model: every participant is a goroutine locked to its own OS
// thread, so a parker that blocks the thread (a futex, a cgo call) is
// measured as a thread wake, and one that parks the goroutine (a channel,
// sync.Cond) as a goroutine wake through the Go scheduler. A parker is made
// on the thread that parks on it. Before anything is measured, each Parker
// passes the conformance check of package benchtest (no lost wakeup, one
// token, no return without one, deadlines); one that fails is not measured
// (a note on stderr says why; naming it in --impl is refused), the
// implementation's lock and condvar still are.
//
// The package holds no flags and no options: everything about a run is
// the command line's (docs/plugins.md). Implementations in C, C++ or Rust
// come in as a plugin (include/parkbench.h, --plugin) instead.
package bench

import (
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/cli"
	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Parker is a token parker (crossbeam's Parker, Rust std's thread::park):
// Unpark leaves a token, or wakes the parked thread; one pending token
// makes the next Park (or ParkDeadline) return at once and is consumed;
// tokens do not accumulate. Park returns only with a token (loop inside
// on a spurious wake). Park and ParkDeadline are called by the thread that
// made the parker; Unpark by any thread.
type Parker interface {
	Park()
	// ParkDeadline parks until a token or the deadline; it reports
	// whether it returned with a token.
	ParkDeadline(deadline time.Time) bool
	Unpark()
}

// Cond is a condition variable bound to one lock, as *sync.Cond: Wait is
// called with the lock held, releases it while waiting and holds it again
// on return; it may return spuriously (callers loop on their condition).
type Cond interface {
	Wait()
	Signal()
	Broadcast()
}

// Impl is one implementation. Set the kinds it has; leave the others nil.
type Impl struct {
	// Name is what --impl takes: lower case letters, digits, '-', '_' and
	// '.', at most 32 bytes, not a built-in's name, not starting with
	// "c-". Summary is one line for `parkbench list`.
	Name, Summary string
	// Sleeps: a wait blocks (in the kernel or the Go scheduler); false
	// for one that spins.
	Sleeps bool
	// NewParker makes a parker (called on the thread that will park on
	// it).
	NewParker func() Parker
	// NewLock makes a lock.
	NewLock func() sync.Locker
	// NewCond makes a condition variable bound to l, one of NewLock's
	// (sync.NewCond fits: func(l sync.Locker) bench.Cond { return
	// sync.NewCond(l) }).
	NewCond func(l sync.Locker) Cond
}

// Main runs the parkbench command line (os.Args) with impls beside the
// built-in implementations, and exits with its status: 0, 1 (a failed
// run), 2 (bad input: a bad or duplicate name, or --impl naming a parker
// that failed the conformance check), 130 (interrupted).
func Main(impls ...Impl) {
	if err := Register(impls...); err != nil {
		fmt.Fprintln(os.Stderr, "parkbench:", err)
		os.Exit(2)
	}
	os.Exit(cli.Main(os.Args[1:]))
}

// Register adds impls to this process's parkbench, for a program that
// builds its own command around the CLI; Main calls it. The parkers'
// conformance checks run when a measuring command starts.
func Register(impls ...Impl) error {
	origin, lib, version := "Go program", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		origin = "Go program " + bi.Path
		lib, version = bi.Main.Path, bi.Main.Version
	}
	var xs []ext.Impl
	for _, im := range impls {
		x := ext.Impl{Name: im.Name, Summary: im.Summary, Sleeps: im.Sleeps, Origin: origin, Library: lib, Version: version}
		if im.NewParker != nil {
			newP := im.NewParker
			x.NewToken = func() parkers.TokenParker { return newP() }
		}
		if im.NewLock != nil {
			newL := im.NewLock
			x.NewLock = func() ext.Locker { return newL() }
		}
		if im.NewCond != nil {
			newC := im.NewCond
			x.NewCond = func(l ext.Locker) ext.Cond { return newC(l) }
		}
		xs = append(xs, x)
	}
	return experiments.AddExternal(xs...)
}
