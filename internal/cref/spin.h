// The C side of parkbench spin: glibc's adaptive mutex
// (PTHREAD_MUTEX_ADAPTIVE_NP) between a waiter and a waker on two C
// threads, the same protocol as the Go rows (internal/experiments/spin
// pair.go), and the length of its spin phase alone. See spin.c.
#ifndef PB_SPIN_H
#define PB_SPIN_H

#include <stdint.h>

// One measured wait, as the waiter saw it (times in ns).
typedef struct {
	int64_t lat;   // the waker's clock right before pthread_mutex_unlock -> the waiter's right after its lock returned
	int64_t late;  // the waker's start + gap -> the same
	int64_t cpu;   // the waiter's CLOCK_THREAD_CPUTIME_ID over its lock call, less the clocks' own cost
	int32_t slept; // a voluntary context switch in it (RUSAGE_THREAD)
	int32_t csw;   // every context switch in it
} pbs_sample;

typedef struct pbs_run pbs_run;

// pbs_available: 1 where the adaptive mutex exists (glibc), else 0.
int pbs_available(void);

// pbs_start creates the waiter (pinned to waiter_cpu) and the waker
// (waker_cpu; -1: unpinned) and runs warmup + n waits at gap_ns; sleepy:
// the handshakes sleep on futexes (both threads on one CPU). It returns at
// once; NULL and *err on failure.
pbs_run *pbs_start(int waiter_cpu, int waker_cpu, int sleepy, int64_t gap_ns, long warmup, long n, int *err);
// pbs_progress is the waits that ended so far; pbs_signalled the waits
// whose unlock the waker made.
long pbs_progress(pbs_run *r);
long pbs_signalled(pbs_run *r);
// pbs_join waits up to timeout_ns for both threads: 0, or ETIMEDOUT.
int pbs_join(pbs_run *r, int64_t timeout_ns);
// pbs_abort releases the handshakes (a waiter blocked in the mutex itself
// cannot be released: the caller then abandons the run).
void pbs_abort(pbs_run *r);
// pbs_samples is the run's n samples (valid until pbs_free).
const pbs_sample *pbs_samples(pbs_run *r);
// pbs_spins is the mutex's adaptive spin estimate (__data.__spins) at the
// end, -1 where it cannot be read.
int pbs_spins(pbs_run *r);
// pbs_pin_error is the first pthread_setaffinity_np error (0: none).
int pbs_pin_error(pbs_run *r);
// pbs_free frees a joined run.
void pbs_free(pbs_run *r);

// pbs_calibrate times glibc's spin phase alone: the waker holds the mutex,
// the waiter locks it, and the waker sees the lock word turn 2 (the waiter
// is about to sleep in the kernel: __lll_lock_wait) and only then unlocks.
// warmup + n times; out_ns (n entries) gets start -> word 2; *spins the
// mutex's __spins at the end. Returns 0, an errno, or ETIMEDOUT when a
// step took over timeout_ns.
int pbs_calibrate(int waiter_cpu, int waker_cpu, long warmup, long n, int64_t *out_ns, int *spins, int64_t timeout_ns);

#endif
