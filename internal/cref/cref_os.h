// The OS layer of cref.c: the wait/wake on a 32-bit word, a barrier,
// pinning, the current CPU and the thread's context switches. Linux: raw
// futex, pthread_barrier_t, pthread_setaffinity_np, sched_getcpu,
// RUSAGE_THREAD. darwin: __ulock_wait / __ulock_wake (UL_COMPARE_AND_WAIT,
// process-private; private API, declared here as libc++ does), a
// mutex+condvar barrier (darwin has no pthread_barrier_t), no pinning (no
// thread affinity API), no CPU sampling, and process-wide RUSAGE_SELF
// switches (no per-thread count). The darwin half is compiled for darwin
// with zig and never executed here.
#ifndef CREF_OS_H
#define CREF_OS_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>

#if defined(__linux__)
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

// The wake mechanism of mode CREF_FUTEX on this OS.
#define CREF_SLEEP_MODE CREF_FUTEX

// cref_word_wait sleeps while *w == expect. It returns 1 if it may have
// slept, 0 if the kernel refused because the word had changed (EAGAIN).
static inline int cref_word_wait(_Atomic uint32_t *w, uint32_t expect) {
	return syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT_PRIVATE, expect, NULL, NULL, 0) == 0 || errno != EAGAIN;
}
static inline void cref_word_wake(_Atomic uint32_t *w) {
	syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

typedef pthread_barrier_t cref_barrier;
static inline void cref_barrier_init(cref_barrier *b, unsigned n) { pthread_barrier_init(b, NULL, n); }
static inline void cref_barrier_wait(cref_barrier *b) { pthread_barrier_wait(b); }
static inline void cref_barrier_destroy(cref_barrier *b) { pthread_barrier_destroy(b); }

static inline int cref_pin(int cpu) {
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
static inline int cref_getcpu(void) { return sched_getcpu(); }
static inline int cref_can_sample_cpu(void) { return 1; }
// The kernel's id of the calling thread (the TID tracepoints name).
static inline int cref_gettid(void) { return (int)syscall(SYS_gettid); }

// This thread's voluntary + involuntary context switches.
static inline int64_t cref_thread_csw(int me) {
	struct rusage ru;
	(void)me;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
}

#elif defined(__APPLE__)

#define CREF_SLEEP_MODE CREF_ULOCK

extern int __ulock_wait(uint32_t operation, void *addr, uint64_t value, uint32_t timeout_us);
extern int __ulock_wake(uint32_t operation, void *addr, uint64_t wake_value);
#define CREF_UL_COMPARE_AND_WAIT 1
#define CREF_ULF_NO_ERRNO 0x01000000

// __ulock_wait compares the word and sleeps atomically with respect to
// __ulock_wake, as FUTEX_WAIT does; timeout 0 is forever. A mismatch
// returns success at once, so whether it slept is unknown: report 1.
static inline int cref_word_wait(_Atomic uint32_t *w, uint32_t expect) {
	__ulock_wait(CREF_UL_COMPARE_AND_WAIT | CREF_ULF_NO_ERRNO, (void *)w, expect, 0);
	return 1;
}
static inline void cref_word_wake(_Atomic uint32_t *w) {
	__ulock_wake(CREF_UL_COMPARE_AND_WAIT | CREF_ULF_NO_ERRNO, (void *)w, 0);
}

// A reusable barrier: generation counter under a mutex.
typedef struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	unsigned n, arrived, gen;
} cref_barrier;
static inline void cref_barrier_init(cref_barrier *b, unsigned n) {
	pthread_mutex_init(&b->m, NULL);
	pthread_cond_init(&b->c, NULL);
	b->n = n;
	b->arrived = 0;
	b->gen = 0;
}
static inline void cref_barrier_wait(cref_barrier *b) {
	pthread_mutex_lock(&b->m);
	unsigned gen = b->gen;
	if (++b->arrived == b->n) {
		b->arrived = 0;
		b->gen++;
		pthread_cond_broadcast(&b->c);
	} else {
		while (gen == b->gen)
			pthread_cond_wait(&b->c, &b->m);
	}
	pthread_mutex_unlock(&b->m);
}
static inline void cref_barrier_destroy(cref_barrier *b) {
	pthread_cond_destroy(&b->c);
	pthread_mutex_destroy(&b->m);
}

// darwin has no thread affinity (thread_policy_set's affinity tags are
// hints, and arm64 ignores them): a requested pin fails.
static inline int cref_pin(int cpu) {
	(void)cpu;
	return ENOTSUP;
}
static inline int cref_getcpu(void) { return -1; }
static inline int cref_can_sample_cpu(void) { return 0; }
static inline int cref_gettid(void) { return -1; }

// darwin counts switches per process only: side 0 reports the process's
// delta, side 1 none, so the pair's sum is the process's.
static inline int64_t cref_thread_csw(int me) {
	struct rusage ru;
	if (me != 0 || getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
}

#else
#error "cref: Linux and darwin only"
#endif

#endif
