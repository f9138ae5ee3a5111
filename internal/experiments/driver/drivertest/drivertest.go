// Package drivertest is what the experiments' tests share: a run
// interrupted part-way, one refused or cancelled before it starts, options
// that Validate must refuse, and the runtime state every experiment puts
// back however it ends (internal/runenv). Tests only import it.
package drivertest

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// State is the runtime state an experiment must leave as it found it.
type State struct{ Procs, GC int }

// Save reads the state now.
func Save() State {
	gc := debug.SetGCPercent(100)
	debug.SetGCPercent(gc)
	return State{Procs: runtime.GOMAXPROCS(0), GC: gc}
}

// Check fails t, naming what ran, where the state is not s any more.
func (s State) Check(t testing.TB, what string) {
	t.Helper()
	if got := runtime.GOMAXPROCS(0); got != s.Procs {
		t.Errorf("%s: GOMAXPROCS %d after interrupt, want %d", what, got, s.Procs)
	}
	if got := debug.SetGCPercent(s.GC); got != s.GC {
		t.Errorf("%s: GC percent %d after interrupt, want %d", what, got, s.GC)
	}
}

// Interrupt runs run under a context cancelled after 300 ms, as SIGINT
// cancels the command's, and fails t unless run returns context.Canceled;
// a run still going bound after it started is a test failure (a stop that
// is never seen), not a hang.
func Interrupt(t testing.TB, what string, bound time.Duration, run func(context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	timer := time.AfterFunc(300*time.Millisecond, cancel)
	defer timer.Stop()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err = %v, want context.Canceled", what, err)
		}
	case <-time.After(bound):
		t.Fatalf("%s: did not stop within %v of the cancel", what, bound)
	}
}

// Run runs an experiment's Run (RunLatency, herd.Run, ...) on o to the end,
// without progress, and fails t at once on an error.
func Run[O any](t testing.TB, run func(context.Context, O, driver.Progress) (*results.Experiment, error), o O) *results.Experiment {
	t.Helper()
	exp, err := run(context.Background(), o, nil)
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

// Refused runs run on o and fails t, naming what, unless it refuses o
// with an *driver.OptionError (bad input, found before anything is
// measured).
func Refused[O any](t testing.TB, what string, run func(context.Context, O, driver.Progress) (*results.Experiment, error), o O) {
	t.Helper()
	var oe *driver.OptionError
	if _, err := run(context.Background(), o, nil); !errors.As(err, &oe) {
		t.Errorf("%s: %v, want an OptionError", what, err)
	}
}

// Bad is an edit of valid options that Validate must refuse: with an
// *driver.OptionError on Field (any field when it is empty) whose message
// says Want (anything when it is empty) and does not begin with a flag:
// the command puts the field's flag before it ("--gaps: ..."), and a
// message of its own naming it again stutters.
type Bad[O any] struct {
	Field, Want string
	Edit        func(*O)
}

// WantRefused fails t unless Validate refuses each edit in bad of the
// options valid returns as the edit says. Those options are accepted but
// for the edit, except on a host that cannot run the experiment at all
// (inversion off Linux or without root), which the edits' refusals come
// before.
func WantRefused[O interface{ Validate() error }](t testing.TB, valid func() O, bad []Bad[O]) {
	t.Helper()
	for _, b := range bad {
		o := valid()
		b.Edit(&o)
		err := o.Validate()
		var oe *driver.OptionError
		if !errors.As(err, &oe) || b.Field != "" && oe.Field != b.Field || !strings.Contains(err.Error(), b.Want) || strings.HasPrefix(err.Error(), "--") {
			t.Errorf("%s %q: err = %v, want an OptionError on %s saying %q, not beginning with a flag", b.Field, b.Want, err, b.Field, b.Want)
		}
	}
}

// Cancelled runs run on o under a context cancelled before it starts and
// fails t unless it returns context.Canceled.
func Cancelled[O any](t testing.TB, run func(context.Context, O, driver.Progress) (*results.Experiment, error), o O) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := run(ctx, o, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v, want context.Canceled", err)
	}
}

// LinuxOnly skips t, saying why, on any OS but Linux.
func LinuxOnly(t testing.TB, why string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip(why)
	}
}
