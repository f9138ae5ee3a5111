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
	name, summary string
	order         int
	how           futexHow
	unavailable   func() error
}

var futexVariants = []futexVariant{
	{name: NameFutex, order: orderFutex, how: futexHow{keepAlive: keepAliveEvery},
		summary: "parking_lot linux.rs: int32 word, private FUTEX_WAIT/FUTEX_WAKE via unix.Syscall6 (scheduler-aware), relative timeout; " +
			"a Gosched every 5 ms of parks keeps sysmon from stealing the P on every wait (docs/scheduler.md)"},
	{name: NameFutexRaw, order: orderFutexRaw, how: futexHow{raw: true, bound: time.Second, keepAlive: keepAliveEvery},
		summary: "futex with wait and wake through unix.RawSyscall6 (bypasses the Go scheduler: the P stays with the thread); " +
			"every wait bounded to 1 s, and stop-the-world's preemption signal interrupts it at once (EINTR); the keep-alive " +
			"Gosched every 5 ms, so sysmon never preempts it; safe only with GOMAXPROCS > participants, GC off, a watchdog"},
	{name: NameFutexPlain, order: orderFutexPlain, how: futexHow{},
		summary: "futex exactly as linux.rs via unix.Syscall6, no keep-alive: after 10 ms sysmon steals the P on nearly every wait (docs/scheduler.md)"},
	{name: NameFutexSpin, order: orderFutexSpin, how: futexHow{keepAlive: keepAliveEvery, spin: futexSpinChecks},
		summary: "futex with the keep-alive and a short spin (100 checks of the word, ~1 µs) before FUTEX_WAIT, as SpinWait's first steps"},
	{name: NameFutexCgo, order: orderFutexCgo, how: futexHow{cgo: true}, unavailable: futexCgoUnavailable,
		summary: "futex-plain with FUTEX_WAIT through a cgo call to syscall(2) (cgocall's entersyscall instead of Syscall6's); needs cgo"},
	{name: NameFutexRaw1ms, order: orderFutexRaw1ms, how: futexHow{raw: true, bound: time.Millisecond, keepAlive: keepAliveEvery},
		summary: "futex-raw with a 1 ms bound, as futex-raw had first: a slept wake cost 2.5-2.8 µs more than with the 1 s bound " +
			"on a 2-vCPU KVM guest (likely the timer device reprogrammed for an hrtimer that is the CPU's next event: docs/scheduler.md)"},
}

func futexCgoUnavailable() error {
	if !futexCgoBuilt {
		return errors.New("needs cgo (this binary was built with CGO_ENABLED=0)")
	}
	return nil
}
