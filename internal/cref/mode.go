package cref

import (
	"fmt"
	"runtime"
)

// Mode is the wake mechanism of the C reference.
type Mode int

// Modes; the values match CREF_FUTEX / CREF_SPIN / CREF_ULOCK in cref.h.
const (
	Futex Mode = 0 // FUTEX_WAIT_PRIVATE / FUTEX_WAKE_PRIVATE (Linux)
	Spin  Mode = 1 // busy wait on the flag
	Ulock Mode = 2 // __ulock_wait / __ulock_wake, UL_COMPARE_AND_WAIT (darwin)
	// Plugin calls a plugin's parker or lot (OpenPlugin, SelfwakePlugin).
	Plugin Mode = 3
)

// Floor is one C floor implementation as the user names it.
type Floor struct {
	Name    string // the --impl name: c-futex, c-ulock, c-spin
	Mode    Mode
	Sleeps  bool
	Summary string
}

// Floors returns this OS's C floors: c-futex and c-spin on Linux, c-ulock
// and c-spin on darwin (and, elsewhere, Linux's names, which Available
// reports unavailable). Each is available exactly when Available is nil.
func Floors() []Floor {
	sleeper := Floor{Name: "c-futex", Mode: Futex, Sleeps: true,
		Summary: "C threads, raw FUTEX_WAIT/WAKE_PRIVATE ping-pong, no Go runtime in the loop: the floor for sleeping parkers"}
	if runtime.GOOS == "darwin" {
		sleeper = Floor{Name: "c-ulock", Mode: Ulock, Sleeps: true,
			Summary: "C threads, __ulock_wait/__ulock_wake (UL_COMPARE_AND_WAIT, darwin's private futex) ping-pong, " +
				"no Go runtime in the loop: the floor for sleeping parkers"}
	}
	return []Floor{sleeper, {Name: "c-spin", Mode: Spin,
		Summary: "C threads busy-waiting on a flag: the cross-core communication floor"}}
}

// checkMode returns an error if mode is not one of this OS's floors.
func checkMode(mode Mode) error {
	for _, f := range Floors() {
		if f.Mode == mode {
			return nil
		}
	}
	return fmt.Errorf("cref: mode %d is not a C floor on %s", mode, runtime.GOOS)
}

// Result is what one round measured, both sides together.
type Result struct {
	// Samples are the 2n one-way latencies in ns: side 0's (B->A) first.
	Samples []int64
	// Ends, after EnableEnds: each sample's woken-side clock reading
	// (CLOCK_MONOTONIC ns), laid out as Samples.
	Ends []int64
	// NoSleep counts waits that returned without sleeping.
	NoSleep uint64
	// ThreadCsw is the sum of both threads' RUSAGE_THREAD context-switch
	// deltas over the round, read inside each thread (darwin has no
	// per-thread count: there it is the process's RUSAGE_SELF delta).
	ThreadCsw int64
	// SameCPU of CPUSamples sampled wakes had waker and woken on one CPU
	// (never sampled on darwin, which has no sched_getcpu).
	SameCPU, CPUSamples int64
	// Interrupted: the round was stopped (RoundContext) before its n
	// round trips; the other fields are empty.
	Interrupted bool
}
