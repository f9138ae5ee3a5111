// Package monoclock is the clock the experiments time wakes with: the
// platform's finest monotonic counter, read in one call.
//
// Linux, darwin and the rest: runtime.nanotime (one vDSO
// clock_gettime(CLOCK_MONOTONIC) on Linux, mach_absolute_time on darwin):
// what the C references read, and cheaper than time.Now, which reads the
// wall clock too. Every experiment reads this one clock (Nanotime), never
// time.Since: time.Now makes two vDSO calls, wall first and monotonic
// second, which puts one extra clock read between "the flag is seen" and
// "the time is taken" on a woken side: a ~20 ns bias on every Go sample
// that the C samples do not have, as large as the whole difference under
// test for the busy-wait floor.
//
// Windows: QueryPerformanceCounter, what Rust std's Instant reads there.
// The Go runtime's own monotonic clock on Windows is the interrupt time of
// KUSER_SHARED_DATA, which only advances at the system timer's tick (Go
// runtime/time_windows_amd64.s, nanotime1): measured under Wine, it moved
// in steps of about 4 ms while 1 ms waits ran, so a microsecond wake read
// 0 or several milliseconds.
package monoclock

import (
	"sync"
	"time"
)

// Step measures the smallest advance of read seen within about 50 ms: the
// clock's effective resolution (1 for a nanosecond clock read twice in a
// row that moved). 0 when it never moved.
func Step(read func() int64) time.Duration {
	deadline := time.Now().Add(50 * time.Millisecond)
	best := int64(0)
	for i := 0; i < 1000 && time.Now().Before(deadline); i++ {
		a := read()
		b := read()
		for b == a && time.Now().Before(deadline) {
			b = read()
		}
		if d := b - a; d > 0 && (best == 0 || d < best) {
			best = d
		}
	}
	return time.Duration(best)
}

// Resolution is the smallest interval the experiments' clock can show,
// measured once per process (resolution(Nanotime)): under Wine,
// QueryPerformanceCounter's 100 ns; on Linux 1 ns (the clock counts
// nanoseconds and moves between any two reads). An interval measured below
// it is not a measurement (BelowResolution).
var Resolution = sync.OnceValue(func() time.Duration { return resolution(Nanotime) })

// resolution is read's tick: Step, unless two reads in a row never
// returned the same value, in which case the clock is finer than one read
// and Step only measured the read's cost; then 1 ns (every clock the
// experiments use counts in nanoseconds).
func resolution(read func() int64) time.Duration {
	for i := 0; i < 1000; i++ {
		a, b := read(), read()
		if a == b {
			return Step(read)
		}
	}
	return time.Nanosecond
}

// BelowResolution reports whether an interval of ns, measured with a clock
// whose resolution is res, is below that resolution: a reading that says
// nothing but "shorter than one step" (0 steps, or 1 read clamped to 1 ns by
// a histogram). res <= 0 (unknown) flags nothing.
func BelowResolution(ns float64, res time.Duration) bool {
	return res > 0 && ns < float64(res)
}

// GoClockNs is Go's own monotonic clock (what time.Since and every
// time.Time deadline use), in ns since the first call's reference.
func GoClockNs() int64 { return int64(time.Since(goEpoch)) }

var goEpoch = time.Now()
