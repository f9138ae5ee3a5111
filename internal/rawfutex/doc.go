// Package rawfutex is the raw futex(2) calls of parkbench wake and loaded,
// perf bench futex's and schbench's own: FUTEX_WAIT through the
// scheduler-aware unix.Syscall6, the calls that never block (FUTEX_WAKE,
// FUTEX_CMP_REQUEUE, a FUTEX_WAIT bound to fail) through RawSyscall6 as the
// C tools' syscall(2), and the calling thread's own nanosleep and timer
// slack.
// Linux only; elsewhere Supported is false and the calls panic.
package rawfutex
