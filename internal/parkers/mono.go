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
// (x/sys's ClockGettime is a real syscall, not the vDSO). The offset is exact
// to within the few hundred nanoseconds between the two reads at init.
// monoBase is set by the per-OS init (mono_linux.go, or the cgo file).
var (
	monoEpoch = time.Now()
	monoBase  time.Duration
	monoSet   bool
)

// setMonoBase records CLOCK_MONOTONIC read just now.
func setMonoBase(now time.Duration) {
	monoEpoch = time.Now()
	monoBase = now
	monoSet = true
}

// monoNow is the current absolute CLOCK_MONOTONIC time.
func monoNow() time.Duration { return monoBase + time.Since(monoEpoch) }

const maxDuration = time.Duration(1<<63 - 1)

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
