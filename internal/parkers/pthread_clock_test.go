package parkers

import (
	"testing"
	"time"
)

// fakeClocks is a machine with a monotonic clock and a wall clock that can
// be stepped: wall = mono + offset.
type fakeClocks struct {
	mono   time.Duration
	offset time.Duration
}

func (f *fakeClocks) clocks() *pthreadClocks {
	return &pthreadClocks{
		monoNow: func() time.Duration { return f.mono },
		wallNow: func() time.Time { return time.Unix(0, int64(f.mono+f.offset)) },
	}
}

// simulatePark runs the pthread ParkUntil loop (plan a wait, let the
// "kernel" sleep it, re-check the monotonic clock) with nobody unparking,
// and a wall-clock step of step applied while the first wait is in the
// kernel. It returns how long the park really lasted.
func simulatePark(t *testing.T, mode pthreadMode, native, relative waitKind, rem, step time.Duration) time.Duration {
	f := &fakeClocks{mono: 1000 * time.Second, offset: 1_700_000_000 * time.Second}
	c := f.clocks()
	start := f.mono
	deadline := f.mono + rem
	stepped := false
	for turn := 0; ; turn++ {
		if turn > 100 {
			t.Fatal("park loop does not terminate")
		}
		w := planTimedWait(mode, native, relative, c, deadline-f.mono)
		if w.kind == waitCheck {
			return f.mono - start
		}
		if !stepped {
			f.offset += step // the step happens while we sleep
			stepped = true
		}
		// When does the kernel end this wait, on the real (monotonic)
		// time line?
		var sleep time.Duration
		switch w.kind {
		case waitAbsMono, waitClockMono:
			sleep = time.Duration(w.ns) - f.mono
		case waitAbsWall:
			sleep = time.Duration(w.ns) - (f.mono + f.offset)
		case waitRelNP:
			sleep = time.Duration(w.ns)
		default:
			t.Fatalf("unexpected wait kind %d", w.kind)
		}
		if sleep > 0 {
			f.mono += sleep
		}
	}
}

// Seed 001's derivation: with a wall-clock deadline (gettimeofday +
// remaining, absolute pthread_cond_timedwait on a CLOCK_REALTIME condvar),
// a clock step backwards makes the wait longer by the step; a step forwards
// makes the wait return early, but the monotonic re-check waits again, so the
// park never ends early. Monotonic and relative waits ignore both.
func TestPthreadWallClockStep(t *testing.T) {
	const rem = 20 * time.Millisecond
	const step = 5 * time.Second
	for _, tc := range []struct {
		name             string
		mode             pthreadMode
		native, relative waitKind
		back, fwd        time.Duration // how long the park lasts
	}{
		{"wallclock", modeWallclock, waitAbsMono, waitClockMono, rem + step, rem},
		{"native-linux", modeNative, waitAbsMono, waitClockMono, rem, rem},
		{"native-apple", modeNative, waitAbsWall, waitRelNP, rem + step, rem},
		{"relative-linux", modeRelative, waitAbsMono, waitClockMono, rem, rem},
		{"relative-apple", modeRelative, waitAbsWall, waitRelNP, rem, rem},
		{"relative-other", modeRelative, waitAbsMono, waitAbsMono, rem, rem},
	} {
		if got := simulatePark(t, tc.mode, tc.native, tc.relative, rem, -step); got != tc.back {
			t.Errorf("%s, wall clock stepped back %v: park lasted %v, want %v", tc.name, step, got, tc.back)
		}
		if got := simulatePark(t, tc.mode, tc.native, tc.relative, rem, step); got != tc.fwd {
			t.Errorf("%s, wall clock stepped forward %v: park lasted %v, want %v", tc.name, step, got, tc.fwd)
		}
	}
}

func TestPthreadPlanArithmetic(t *testing.T) {
	f := &fakeClocks{mono: 5 * time.Second, offset: 100 * time.Second}
	c := f.clocks()
	rem := 1500 * time.Millisecond
	if w := planTimedWait(modeNative, waitAbsMono, waitClockMono, c, rem); w.kind != waitAbsMono || w.ns != int64(6500*time.Millisecond) {
		t.Errorf("native: %+v, want abs mono 6.5s", w)
	}
	if w := planTimedWait(modeWallclock, waitAbsMono, waitClockMono, c, rem); w.kind != waitAbsWall || w.ns != int64(106500*time.Millisecond) {
		t.Errorf("wallclock: %+v, want abs wall 106.5s", w)
	}
	if w := planTimedWait(modeRelative, waitAbsWall, waitRelNP, c, rem); w.kind != waitRelNP || w.ns != int64(rem) {
		t.Errorf("relative (apple): %+v, want relative 1.5s", w)
	}
	if w := planTimedWait(modeRelative, waitAbsMono, waitClockMono, c, rem); w.kind != waitClockMono || w.ns != int64(6500*time.Millisecond) {
		t.Errorf("relative (glibc): %+v, want clockwait 6.5s", w)
	}
	for _, mode := range []pthreadMode{modeNative, modeWallclock, modeRelative} {
		if w := planTimedWait(mode, waitAbsMono, waitClockMono, c, 0); w.kind != waitCheck {
			t.Errorf("mode %d, nothing left: %+v, want a check", mode, w)
		}
		// upstream: a timeout that overflows the timespec sleeps
		// indefinitely.
		if w := planTimedWait(mode, waitAbsMono, waitClockMono, c, maxDuration); mode != modeRelative && w.kind != waitForever {
			t.Errorf("mode %d, overflowing timeout: %+v, want wait forever", mode, w)
		}
	}
	// gettimeofday has microsecond resolution.
	if g := gettimeofday(); g.Nanosecond()%1000 != 0 {
		t.Errorf("gettimeofday() = %v, not whole microseconds", g)
	}
}
