//go:build linux

package parkers

import (
	"errors"
	"time"
)

// futexHow is how a futex variant waits. The wake is FUTEX_WAKE through
// Syscall (RawSyscall for the raw variants: it never blocks) in every one.
type futexHow struct {
	// raw: wait through RawSyscall6, each wait bounded to bound.
	raw   bool
	bound time.Duration
	// cgo: wait through a cgo call (futex_cgo_linux.go).
	cgo bool
	// keepAlive > 0: a Park that is about to sleep calls runtime.Gosched
	// first when the last keep-alive was at least this long ago.
	//
	// Why: a goroutine locked to its thread that only ever sleeps in
	// system calls never passes through the scheduler, so its P's
	// schedtick never moves. sysmon's retake (Go runtime/proc.go) takes
	// a P whose schedtick has not moved for forcePreemptNS (10 ms) as a
	// long-running goroutine: preemptone, and if the goroutine is in a
	// syscall, it takes the P at once (sysretake skips the "idle Ps
	// exist" test). exitsyscall then takes an idle P back without going
	// through execute, so the schedtick still does not move, and the
	// next sysmon tick steals again; every steal resets sysmon's back-off
	// to a 20 µs tick. A Gosched goes through execute, which advances
	// the schedtick, so with one every 5 ms (under forcePreemptNS) that
	// path never fires. The cost: a locked goroutine's Gosched hands its
	// P to another M and back (stoplockedm/startlockedm), a few switches
	// of other threads every 5 ms, against up to one steal per wait.
	keepAlive time.Duration
	// spin: check the word this many times (CPURelax(futexSpinRelax)
	// between checks) before the first FUTEX_WAIT of a park, as
	// SpinWait's first steps.
	spin int
}

// keepAliveEvery is under the runtime's forcePreemptNS (10 ms) with room for
// sysmon's tick: the schedtick moves at least once in every 10 ms window.
const keepAliveEvery = 5 * time.Millisecond

const (
	futexSpinChecks = 100
	futexSpinRelax  = 10
)

type futexVariant struct {
	name        string
	how         futexHow
	unavailable func() error
}

// futexVariants is how each futex backend of the table waits.
var futexVariants = []futexVariant{
	{name: NameFutex, how: futexHow{keepAlive: keepAliveEvery}},
	{name: NameFutexRaw, how: futexHow{raw: true, bound: time.Second, keepAlive: keepAliveEvery}},
	{name: NameFutexPlain, how: futexHow{}},
	{name: NameFutexSpin, how: futexHow{keepAlive: keepAliveEvery, spin: futexSpinChecks}},
	{name: NameFutexCgo, how: futexHow{cgo: true}, unavailable: futexCgoUnavailable},
	{name: NameFutexRaw1ms, how: futexHow{raw: true, bound: time.Millisecond, keepAlive: keepAliveEvery}},
}

func futexCgoUnavailable() error {
	if !futexCgoBuilt {
		return errors.New("needs cgo (this binary was built with CGO_ENABLED=0)")
	}
	return nil
}
