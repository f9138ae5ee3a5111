//go:build linux && cgo

// The C side of parkbench spin; the contract is in spin.h.
//
// The waiter and the waker are C threads (pthread_create, pinned with
// pthread_setaffinity_np), with the Go rows' protocol (internal/experiments/
// spin pair.go, where the why is). Per wait the waker leads: it locks the
// adaptive mutex and says so (arm); the waiter reads its clocks (across
// CPUs it then stamps the start and says so: waiting; on one CPU the start
// is the waker's, stamped before the arm) and calls pthread_mutex_lock,
// which spins (glibc's adaptive loop, nptl/pthread_mutex_lock.c:113-145 in
// bminor/glibc at 04e750e7: up to min(max_adaptive_count, 2 x __spins +
// 10) PAUSE with exponential backoff to 16 and jitter on x86_64, then
// LLL_MUTEX_LOCK, a futex wait) and returns holding it. The waker
// busy-waits until start + gap, stamps and unlocks (glibc's unlock wakes
// one sleeper if the word says contended). The waiter stamps, reads its
// clocks, unlocks and says so (done), and only then does the waker lock
// again, so the next wait cannot be one the waker took back first.
//
// The handshakes are the Go rows' gates: an increasing number the other
// side waits to reach, spinning (a PAUSE per look) across CPUs, sleeping
// on the word's futex on one CPU, with a sleeping flag the publisher reads
// after its store (both seq_cst: one side sees the other's store; a
// FUTEX_WAIT that starts after the store returns EAGAIN).

#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

#if defined(__GLIBC__) && defined(PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP)
#define PBS_ADAPTIVE 1
#else
#define PBS_ADAPTIVE 0
#endif

static inline int64_t pbs_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int64_t pbs_cpu(void) {
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline void pbs_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

typedef struct {
	int64_t cpu, vol, invol;
} pbs_reads;

static inline pbs_reads pbs_read(void) {
	pbs_reads r;
	struct rusage ru;
	r.cpu = pbs_cpu();
	getrusage(RUSAGE_THREAD, &ru);
	r.vol = ru.ru_nvcsw;
	r.invol = ru.ru_nivcsw;
	return r;
}

// The gate (see the file comment).
typedef struct {
	_Atomic int32_t v;
	_Atomic int32_t sleeping;
} __attribute__((aligned(64))) pbs_gate;

static void pbs_publish(pbs_gate *g, int32_t i, int sleepy) {
	atomic_store(&g->v, i);
	if (sleepy && atomic_load(&g->sleeping))
		syscall(SYS_futex, (int32_t *)&g->v, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

// pbs_await waits until g reaches i; 0 when aborted.
static int pbs_await(pbs_gate *g, int32_t i, int sleepy, _Atomic int *abort) {
	for (;;) {
		int32_t cur = atomic_load(&g->v);
		if (cur >= i)
			return !atomic_load(abort);
		if (sleepy) {
			atomic_store(&g->sleeping, 1);
			if (atomic_load(&g->v) == cur)
				syscall(SYS_futex, (int32_t *)&g->v, FUTEX_WAIT_PRIVATE, cur, NULL, NULL, 0);
			atomic_store(&g->sleeping, 0);
		} else {
			pbs_pause();
		}
	}
}

static void pbs_release_gate(pbs_gate *g) {
	atomic_store(&g->v, 1 << 30);
	syscall(SYS_futex, (int32_t *)&g->v, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

struct pbs_run {
	pthread_mutex_t mu __attribute__((aligned(64)));
	pbs_gate arm, waiting, done;
	_Atomic int64_t start __attribute__((aligned(64)));
	_Atomic int64_t sig __attribute__((aligned(64)));
	_Atomic long progress __attribute__((aligned(64)));
	_Atomic long signalled;
	_Atomic int abort;
	int sleepy, cpus[2], pin_err[2], spins;
	int64_t gap, overhead;
	long warmup, n;
	pbs_sample *out;
	pthread_t th[2];
	int created;
	_Atomic int exited;
};

static int pbs_pin(int cpu) {
	if (cpu < 0)
		return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// pbs_overhead is the median CPU time of the reads around an empty wait.
static int64_t pbs_overhead(void) {
	enum { N = 201 };
	int64_t d[N];
	for (int i = 0; i < N; i++) {
		pbs_reads a = pbs_read(), b = pbs_read();
		d[i] = b.cpu - a.cpu;
	}
	for (int i = 1; i < N; i++)
		for (int k = i; k > 0 && d[k - 1] > d[k]; k--) {
			int64_t t = d[k];
			d[k] = d[k - 1];
			d[k - 1] = t;
		}
	return d[N / 2];
}

static void *pbs_waiter(void *p) {
	pbs_run *r = p;
	r->pin_err[0] = pbs_pin(r->cpus[0]);
	r->overhead = pbs_overhead();
	long total = r->warmup + r->n;
	for (long i = 1; i <= total; i++) {
		if (!pbs_await(&r->arm, (int32_t)i, r->sleepy, &r->abort))
			break;
		pbs_reads r0 = pbs_read();
		if (!r->sleepy) {
			atomic_store(&r->start, pbs_now());
			pbs_publish(&r->waiting, (int32_t)i, 0);
		}
		pthread_mutex_lock(&r->mu);
		int64_t t1 = pbs_now();
		pbs_reads r1 = pbs_read();
		pthread_mutex_unlock(&r->mu);
		if (atomic_load(&r->abort))
			break;
		long k = i - 1 - r->warmup;
		if (k >= 0) {
			int64_t cpu = r1.cpu - r0.cpu - r->overhead;
			r->out[k] = (pbs_sample){
				.lat = t1 - atomic_load(&r->sig),
				.late = t1 - atomic_load(&r->start) - r->gap,
				.cpu = cpu > 0 ? cpu : 0,
				.slept = r1.vol > r0.vol,
				.csw = (int32_t)(r1.vol + r1.invol - r0.vol - r0.invol),
			};
		}
		atomic_fetch_add(&r->progress, 1);
		pbs_publish(&r->done, (int32_t)i, r->sleepy);
	}
	atomic_fetch_add(&r->exited, 1);
	return NULL;
}

static void *pbs_waker(void *p) {
	pbs_run *r = p;
	r->pin_err[1] = pbs_pin(r->cpus[1]);
	long total = r->warmup + r->n;
	for (long i = 1; i <= total; i++) {
		pthread_mutex_lock(&r->mu);
		if (r->sleepy)
			atomic_store(&r->start, pbs_now());
		pbs_publish(&r->arm, (int32_t)i, r->sleepy);
		if (!r->sleepy && !pbs_await(&r->waiting, (int32_t)i, 0, &r->abort)) {
			pthread_mutex_unlock(&r->mu);
			break;
		}
		int64_t due = atomic_load(&r->start) + r->gap;
		while (pbs_now() < due)
			pbs_pause();
		atomic_store(&r->sig, pbs_now());
		pthread_mutex_unlock(&r->mu);
		atomic_store(&r->signalled, i);
		if (!pbs_await(&r->done, (int32_t)i, r->sleepy, &r->abort))
			break;
	}
#if PBS_ADAPTIVE && defined(__x86_64__)
	r->spins = r->mu.__data.__spins;
#endif
	atomic_fetch_add(&r->exited, 1);
	return NULL;
}

int pbs_available(void) { return PBS_ADAPTIVE; }

static int pbs_init_mutex(pthread_mutex_t *mu) {
#if PBS_ADAPTIVE
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	int e = pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
	if (e == 0)
		e = pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
	return e;
#else
	(void)mu;
	return ENOTSUP;
#endif
}

pbs_run *pbs_start(int waiter_cpu, int waker_cpu, int sleepy, int64_t gap_ns, long warmup, long n, int *err) {
	pbs_run *r = aligned_alloc(64, (sizeof(pbs_run) + 63) / 64 * 64);
	if (!r) {
		*err = ENOMEM;
		return NULL;
	}
	memset(r, 0, sizeof *r);
	r->out = calloc((size_t)n, sizeof(pbs_sample));
	if (!r->out) {
		free(r);
		*err = ENOMEM;
		return NULL;
	}
	if ((*err = pbs_init_mutex(&r->mu)) != 0) {
		free(r->out);
		free(r);
		return NULL;
	}
	r->sleepy = sleepy;
	r->cpus[0] = waiter_cpu;
	r->cpus[1] = waker_cpu;
	r->gap = gap_ns;
	r->warmup = warmup;
	r->n = n;
	r->spins = -1;
	void *(*fn[2])(void *) = {pbs_waiter, pbs_waker};
	for (int i = 0; i < 2; i++) {
		if ((*err = pthread_create(&r->th[i], NULL, fn[i], r)) != 0) {
			pbs_abort(r);
			for (int k = 0; k < r->created; k++)
				pthread_join(r->th[k], NULL);
			pbs_free(r);
			return NULL;
		}
		r->created++;
	}
	return r;
}

long pbs_progress(pbs_run *r) { return atomic_load(&r->progress); }
long pbs_signalled(pbs_run *r) { return atomic_load(&r->signalled); }

int pbs_join(pbs_run *r, int64_t timeout_ns) {
	int64_t end = pbs_now() + timeout_ns;
	while (atomic_load(&r->exited) < r->created) {
		if (pbs_now() > end)
			return ETIMEDOUT;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	for (int k = 0; k < r->created; k++)
		pthread_join(r->th[k], NULL);
	r->created = 0;
	return 0;
}

void pbs_abort(pbs_run *r) {
	atomic_store(&r->abort, 1);
	pbs_release_gate(&r->arm);
	pbs_release_gate(&r->waiting);
	pbs_release_gate(&r->done);
}

const pbs_sample *pbs_samples(pbs_run *r) { return r->out; }
int pbs_spins(pbs_run *r) { return r->spins; }
int pbs_pin_error(pbs_run *r) { return r->pin_err[0] ? r->pin_err[0] : r->pin_err[1]; }

void pbs_free(pbs_run *r) {
	pthread_mutex_destroy(&r->mu);
	free(r->out);
	free(r);
}

// The calibration (spin.h): one step at a time, so that each start and
// each word-2 time pair up. The waker locks and says so (held); the waiter
// stamps its start and locks; the waker watches the lock word (the public
// __data.__lock: 0 free, 1 locked, 2 locked with sleepers) until the
// waiter's __lll_lock_wait made it 2, right before its FUTEX_WAIT, records
// the time since the start and unlocks; the waiter, holding it, unlocks and
// says so (parked).
typedef struct {
	pthread_mutex_t mu __attribute__((aligned(64)));
	pbs_gate held, parked;
	_Atomic int64_t start __attribute__((aligned(64)));
	_Atomic int abort;
	int cpus[2], pin_err[2], spins, timed_out;
	long warmup, n;
	int64_t timeout, *out;
} pbs_cal;

static void *pbs_cal_waiter(void *p) {
	pbs_cal *c = p;
	c->pin_err[0] = pbs_pin(c->cpus[0]);
	for (long i = 1; i <= c->warmup + c->n; i++) {
		if (!pbs_await(&c->held, (int32_t)i, 0, &c->abort))
			break;
		atomic_store(&c->start, pbs_now());
		pthread_mutex_lock(&c->mu);
		pthread_mutex_unlock(&c->mu);
		pbs_publish(&c->parked, (int32_t)i, 0);
	}
	return NULL;
}

static void *pbs_cal_waker(void *p) {
	pbs_cal *c = p;
	c->pin_err[1] = pbs_pin(c->cpus[1]);
	for (long i = 1; i <= c->warmup + c->n; i++) {
		pthread_mutex_lock(&c->mu);
		atomic_store(&c->start, 0);
		pbs_publish(&c->held, (int32_t)i, 0);
		int64_t end = pbs_now() + c->timeout, start;
		for (;;) {
#if PBS_ADAPTIVE
			int w = __atomic_load_n(&c->mu.__data.__lock, __ATOMIC_ACQUIRE);
#else
			int w = 2;
#endif
			start = atomic_load(&c->start);
			if (w == 2 && start != 0)
				break;
			if (pbs_now() > end) {
				c->timed_out = 1;
				break;
			}
			pbs_pause();
		}
		int64_t at2 = pbs_now();
		long k = i - 1 - c->warmup;
		if (k >= 0 && !c->timed_out)
			c->out[k] = at2 - start;
		pthread_mutex_unlock(&c->mu);
		if (c->timed_out) {
			atomic_store(&c->abort, 1);
			pbs_release_gate(&c->held);
			break;
		}
		if (!pbs_await(&c->parked, (int32_t)i, 0, &c->abort))
			break;
	}
#if PBS_ADAPTIVE && defined(__x86_64__)
	c->spins = c->mu.__data.__spins;
#endif
	return NULL;
}

int pbs_calibrate(int waiter_cpu, int waker_cpu, long warmup, long n, int64_t *out_ns, int *spins, int64_t timeout_ns) {
	pbs_cal *c = aligned_alloc(64, (sizeof(pbs_cal) + 63) / 64 * 64);
	if (!c)
		return ENOMEM;
	memset(c, 0, sizeof *c);
	int e = pbs_init_mutex(&c->mu);
	if (e != 0) {
		free(c);
		return e;
	}
	c->cpus[0] = waiter_cpu;
	c->cpus[1] = waker_cpu;
	c->spins = -1;
	c->timeout = timeout_ns;
	c->warmup = warmup;
	c->n = n;
	c->out = out_ns;
	pthread_t th[2];
	void *(*fn[2])(void *) = {pbs_cal_waiter, pbs_cal_waker};
	int created = 0;
	for (; created < 2; created++)
		if ((e = pthread_create(&th[created], NULL, fn[created], c)) != 0)
			break;
	if (e != 0) {
		atomic_store(&c->abort, 1);
		pbs_release_gate(&c->held);
		pbs_release_gate(&c->parked);
	}
	for (int k = 0; k < created; k++)
		pthread_join(th[k], NULL);
	if (e == 0)
		e = c->pin_err[0] ? c->pin_err[0] : c->pin_err[1];
	if (e == 0 && c->timed_out)
		e = ETIMEDOUT;
	*spins = c->spins;
	pthread_mutex_destroy(&c->mu);
	free(c);
	return e;
}
