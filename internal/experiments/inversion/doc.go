// Package inversion is `parkbench inversion`: priority inversion and
// priority inheritance, the textbook case rt-tests' pi_stress drives
// (rt-tests src/pi_tests/pi_stress.c) and the kernel's PI futexes solve
// (Documentation/locking/pi-futex.rst).
//
// Three threads share one CPU under SCHED_FIFO: low (priority 10) takes
// the lock and does --hold of busy work inside it; while it holds it, it
// wakes high (30), which preempts it, wakes medium (20) and blocks on the
// lock; medium needs no lock and spins for --medium. With priority
// inheritance the kernel runs low at high's priority while high waits, so
// medium cannot preempt it and high's wait is the rest of the critical
// section. Without it, medium runs first and high's wait includes medium's
// whole spin. The figure is high's wait, per lock, over --repeats rounds.
//
// Safety (the machine is shared): the three threads are pinned to one CPU
// and a watchdog thread on another CPU bounds every round; medium's spin
// is bounded by its own clock and by the watchdog's abort flag; every RT
// thread is put back to SCHED_OTHER on every exit path (its own defer, and
// the coordinator's, which also runs on a watchdog timeout), and sets
// SCHED_RESET_ON_FORK so no thread it creates inherits RT priority. The
// experiment refuses to run with fewer than two usable CPUs or with RT
// throttling off (kernel.sched_rt_runtime_us = -1) unless Force.
//
// Linux only; it needs the privilege to set SCHED_FIFO (root,
// CAP_SYS_NICE, or RLIMIT_RTPRIO of at least 30). `run` does not include
// it.
package inversion
