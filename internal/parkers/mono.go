//go:build linux || (unix && cgo)

package parkers

import "time"

// Absolute CLOCK_MONOTONIC times, for the waits that take an absolute
// monotonic deadline (std's FUTEX_WAIT_BITSET, pthread condvars with a
// monotonic condattr).
//
// Go's monotonic clock reading is the kernel's CLOCK_MONOTONIC
// (runtime.nanotime) minus a process-start offset, so one clock_gettime at
// init gives the offset for good: the absolute monotonic time of a time.Time
// t is monoBase + t.Sub(monoEpoch). That costs no syscall per deadline
// (x/sys's ClockGettime is a real syscall, not the vDSO).
//
// The pair is read epoch first, clock second, so the mapping can only err
// late: a deadline handed to the kernel is never earlier than the caller's
// (std's park_timeout makes one wait and does not re-check the clock, so an
// early kernel deadline would end the park early). The best of a few
// samples bounds the error by the shortest read interval, well under a
// microsecond. monoBase is set by the per-OS init (mono_linux.go, or the
// cgo file).
var (
	monoEpoch = time.Now()
	monoBase  time.Duration
	monoSet   bool
)

// calibrateMono sets monoEpoch/monoBase from read, a CLOCK_MONOTONIC read.
func calibrateMono(read func() time.Duration) {
	best := maxDuration
	for i := 0; i < 5; i++ {
		epoch := time.Now()
		base := read()
		if span := time.Since(epoch); span < best {
			best = span
			monoEpoch, monoBase = epoch, base
		}
	}
	monoSet = true
}

// monoNow is the current absolute CLOCK_MONOTONIC time.
func monoNow() time.Duration { return monoBase + time.Since(monoEpoch) }

// monoAbsNs returns deadline as absolute CLOCK_MONOTONIC nanoseconds. A
// deadline before the clock's zero gives 0, which the kernel treats as
// already expired. ok is false when the deadline does not fit (Rust's
// Instant::checked_add failing): callers then wait without a timeout, as
// upstream does.
func monoAbsNs(deadline time.Time) (ns int64, ok bool) {
	d := deadline.Sub(monoEpoch) // saturates at ±maxDuration
	if d > maxDuration-monoBase {
		return 0, false
	}
	if t := monoBase + d; t > 0 {
		return int64(t), true
	}
	return 0, true
}
