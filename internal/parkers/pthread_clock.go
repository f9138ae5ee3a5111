package parkers

import "time"

// The three clock behaviours of the pthread backend's timed wait. This file
// is OS-independent so the deadline arithmetic, and what a wall-clock step
// does to it, is unit-tested anywhere with fake clocks.
//
// pthread (modeNative) is parking_lot_core 0.9.x unix.rs as it behaves on
// this OS: on Linux and the BSDs the condvar gets a CLOCK_MONOTONIC condattr
// and the deadline is clock_gettime(CLOCK_MONOTONIC) + remaining, passed
// absolute to pthread_cond_timedwait. On Apple (no
// pthread_condattr_setclock) upstream uses the default CLOCK_REALTIME
// condvar with a gettimeofday deadline, i.e. modeWallclock.
//
// pthread-wallclock (modeWallclock) is that Apple behaviour on every OS:
// default condattr (CLOCK_REALTIME), deadline = gettimeofday() + remaining,
// absolute pthread_cond_timedwait, and upstream's loop that re-checks the
// monotonic clock after each return. Consequence (tested with fake clocks
// in pthread_clock_test.go, since a test cannot step the real one): a wall-clock
// step forward makes the wait return early, but the monotonic re-check sees
// time left and waits again, so the park never ends early; a step backwards
// moves the absolute deadline away, and the wait already in the kernel lasts
// that much longer.
//
// pthread-relative (modeRelative) is the later behaviour (Rust std PR
// #146503, CPython's parking_lot.c): each wait computes the remaining time
// from the monotonic clock and waits for that long, immune to wall-clock
// steps. On Apple that is pthread_cond_timedwait_relative_np(remaining); on
// glibc >= 2.30 (no relative wait exists) pthread_cond_clockwait with
// CLOCK_MONOTONIC and monotonic-now + remaining on a default-attr condvar
// (the clock is chosen per wait, not per condvar); elsewhere a
// CLOCK_MONOTONIC-condattr condvar with an absolute monotonic deadline (the
// same wait as modeNative there).
type pthreadMode int

const (
	modeNative pthreadMode = iota
	modeWallclock
	modeRelative
)

// waitKind is the call the C helper makes for one timed wait.
type waitKind int

const (
	waitCheck     waitKind = iota // deadline passed: re-check the flag, no wait
	waitForever                   // deadline overflowed: pthread_cond_wait (upstream)
	waitAbsMono                   // pthread_cond_timedwait, absolute CLOCK_MONOTONIC (monotonic condattr)
	waitAbsWall                   // pthread_cond_timedwait, absolute CLOCK_REALTIME (default condattr)
	waitClockMono                 // pthread_cond_clockwait(CLOCK_MONOTONIC), absolute
	waitRelNP                     // pthread_cond_timedwait_relative_np, relative (Apple)
)

// timedWait is one planned wait: the call and its timespec, in nanoseconds
// (absolute on the call's clock, or relative for waitRelNP).
type timedWait struct {
	kind waitKind
	ns   int64
}

// pthreadClocks are the clocks the plan reads; tests substitute fakes.
type pthreadClocks struct {
	// monoNow is absolute CLOCK_MONOTONIC (upstream timespec_now off Apple).
	monoNow func() time.Duration
	// wallNow is gettimeofday: CLOCK_REALTIME at microsecond resolution.
	wallNow func() time.Time
}

// gettimeofday is time.Now's wall reading truncated to microseconds (Go
// reads CLOCK_REALTIME through the vDSO; gettimeofday has 1 µs resolution).
func gettimeofday() time.Time { return time.Now().Round(0).Truncate(time.Microsecond) }

const maxDuration = time.Duration(1<<63 - 1)

// planTimedWait returns the wait for a park with rem (> 0) left, measured on
// the monotonic clock. native and relative are the wait kinds this OS uses
// for modeNative and modeRelative (decided by the C side at build time).
func planTimedWait(mode pthreadMode, native, relative waitKind, c *pthreadClocks, rem time.Duration) timedWait {
	if rem <= 0 {
		return timedWait{kind: waitCheck}
	}
	kind := native
	switch mode {
	case modeWallclock:
		kind = waitAbsWall
	case modeRelative:
		kind = relative
	}
	switch kind {
	case waitRelNP:
		return timedWait{kind: waitRelNP, ns: int64(rem)}
	case waitAbsWall:
		// upstream timeout_to_timespec on Apple: gettimeofday + timeout,
		// checked for overflow.
		now := c.wallNow().UnixNano()
		if int64(rem) > 1<<63-1-now {
			return timedWait{kind: waitForever}
		}
		return timedWait{kind: waitAbsWall, ns: now + int64(rem)}
	default: // waitAbsMono, waitClockMono
		now := c.monoNow()
		if rem > maxDuration-now {
			return timedWait{kind: waitForever}
		}
		return timedWait{kind: kind, ns: int64(now + rem)}
	}
}
