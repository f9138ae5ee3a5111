package e12

import "github.com/parkbench/parkbench/internal/monoclock"

// nanotime is the clock every sample is taken with (internal/monoclock):
// on Linux one vDSO clock_gettime(CLOCK_MONOTONIC), exactly what the C
// reference reads. time.Since would read the wall clock as well (time.Now
// makes two vDSO calls, wall first, monotonic second), which puts one extra
// clock read between "the flag is seen" and "the time is taken" on the
// woken side: a ~20 ns bias on every Go sample that the C samples do not
// have, as large as the whole difference under test for the busy-wait
// floor. On Windows it is QueryPerformanceCounter: Go's own clock there
// steps at the timer tick.
func nanotime() int64 { return monoclock.Nanotime() }
