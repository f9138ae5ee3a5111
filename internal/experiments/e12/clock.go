package e12

import _ "unsafe" // for go:linkname

// nanotime is the runtime's monotonic clock: one vDSO
// clock_gettime(CLOCK_MONOTONIC), exactly what the C reference reads.
// time.Since would read the wall clock as well (time.Now makes two vDSO
// calls, wall first, monotonic second), which puts one extra clock read
// between "the flag is seen" and "the time is taken" on the woken side: a
// ~20 ns bias on every Go sample that the C samples do not have, as large
// as the whole difference under test for the busy-wait floor.
// runtime.nanotime is one of the runtime symbols the Go team keeps
// linkname-able on purpose ("widely used packages access it using
// linkname ... do not remove or change the type signature").
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
