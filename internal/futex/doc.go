// Package futex is parkbench's one set of Linux futex(2) wrappers, as
// Linux perf's tools/perf/bench/futex.h is perf's: the parkers' futex,
// std and crossbeam backends, internal/futexsync's Rust std primitives and
// E12's Go twins of the C reference all wait and wake through it.
//
// Every futex word handed to the kernel here is an *atomic.Int32 that is a
// field of a heap object the caller keeps reachable for the duration of
// the call (Go's garbage collector does not move heap objects); it is
// converted to uintptr in the syscall expression itself, which keeps it
// alive across the call.
//
// The wrappers return the kernel's errno and never retry: what EAGAIN,
// EINTR and ETIMEDOUT mean is the caller's protocol (each caller loops on
// its own word). On other systems the package is empty.
package futex
