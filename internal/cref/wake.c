//go:build linux && cgo

// The C side of parkbench wake; the contract is in wake.h.
//
// Waiters (pbw_start) are perf bench futex's workerfn: C threads made with
// pthread_create, pinned round-robin by the caller's cpus through
// pthread_attr_setaffinity_np as perf's block_threads does
// (tools/perf/bench/futex-wake.c:111-121 at commit 550d14e3942c), each
// counting itself in right before it blocks. The futex waiters wait while
// the word is 0 and only loop on EINTR (futex-wake.c:75-78); the condvar
// waiters wait on one pthread_cond_t until the waker's flag is set under
// the mutex. The timed wake (pbw_fire) runs on the calling thread, between
// two CLOCK_MONOTONIC reads, with one more read after each call for the
// per-call durations.

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

#include "wake.h"

// Waiter threads get 256 KiB stacks: 1024 of them with glibc's default
// (8 MiB, reserved) would reserve 8 GiB of address space for nothing.
#define PBW_STACK (256 * 1024)

static inline int64_t pbw_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline long pbw_futex(_Atomic uint32_t *w, int op, long val, long val2, _Atomic uint32_t *w2, long val3) {
	return syscall(SYS_futex, (uint32_t *)w, op, val, val2, (uint32_t *)w2, val3);
}

static inline int64_t pbw_thread_csw(void) {
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0)
		return 0;
	return (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
}

typedef struct {
	_Atomic int64_t tid;
	int pin_err;
} __attribute__((aligned(64))) pbw_slot;

struct pbw_set {
	// The futex words, each on its own line: word1 is what the futex
	// waiters wait on (the requeue's source), word2 the requeue's target.
	_Atomic uint32_t word1 __attribute__((aligned(64)));
	_Atomic uint32_t word2 __attribute__((aligned(64)));
	int kind, n;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int released; // under mu: the condvar waiters' predicate
	_Atomic int counted;
	_Atomic int exited;
	int created, joined;
	pthread_t *threads;
	pbw_slot *slots;
	struct pbw_arg *args;
};

typedef struct pbw_arg {
	pbw_set *s;
	int i;
} pbw_arg;

static void *pbw_waiter(void *p) {
	pbw_arg *a = p;
	pbw_set *s = a->s;
	atomic_store(&s->slots[a->i].tid, (int64_t)syscall(SYS_gettid));
	if (s->kind == PBW_COND) {
		pthread_mutex_lock(&s->mu);
		atomic_fetch_add(&s->counted, 1);
		while (!s->released)
			pthread_cond_wait(&s->cv, &s->mu);
		pthread_mutex_unlock(&s->mu);
	} else {
		int op = s->kind == PBW_FUTEX ? FUTEX_WAIT_PRIVATE : FUTEX_WAIT;
		atomic_fetch_add(&s->counted, 1);
		// Woken (0), or the word is no longer 0 (EAGAIN: released by
		// force): leave. Only a signal (EINTR) waits again.
		while (pbw_futex(&s->word1, op, 0, 0, NULL, 0) != 0 && errno == EINTR)
			;
	}
	atomic_fetch_add(&s->exited, 1);
	return NULL;
}

// pbw_release makes every waiter leave: the words stop being 0 (a waiter
// not yet waiting gets EAGAIN) and everybody on them is woken; the condvar
// predicate is set and broadcast.
static void pbw_release(pbw_set *s) {
	if (s->kind == PBW_COND) {
		pthread_mutex_lock(&s->mu);
		s->released = 1;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		return;
	}
	int flag = s->kind == PBW_FUTEX ? FUTEX_PRIVATE_FLAG : 0;
	atomic_store(&s->word1, 1);
	atomic_store(&s->word2, 1);
	pbw_futex(&s->word1, FUTEX_WAKE | flag, INT_MAX, 0, NULL, 0);
	pbw_futex(&s->word2, FUTEX_WAKE | flag, INT_MAX, 0, NULL, 0);
}

static void pbw_join_all(pbw_set *s) {
	for (int i = 0; i < s->created; i++)
		pthread_join(s->threads[i], NULL);
	s->joined = 1;
}

static void pbw_destroy(pbw_set *s) {
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s->threads);
	free(s->slots);
	free(s->args);
	free(s);
}

pbw_set *pbw_start(int kind, int n, const int *cpus, int *err) {
	pbw_set *s = aligned_alloc(64, (sizeof(pbw_set) + 63) / 64 * 64);
	if (!s) {
		*err = ENOMEM;
		return NULL;
	}
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->n = n;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	s->threads = calloc(n, sizeof *s->threads);
	s->slots = aligned_alloc(64, (size_t)n * sizeof(pbw_slot));
	s->args = calloc(n, sizeof *s->args);
	if (!s->threads || !s->slots || !s->args) {
		pbw_destroy(s);
		*err = ENOMEM;
		return NULL;
	}
	memset(s->slots, 0, (size_t)n * sizeof(pbw_slot));
	for (int i = 0; i < n; i++) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setstacksize(&attr, PBW_STACK);
		if (cpus && cpus[i] >= 0) {
			cpu_set_t set;
			CPU_ZERO(&set);
			CPU_SET(cpus[i], &set);
			s->slots[i].pin_err = pthread_attr_setaffinity_np(&attr, sizeof set, &set);
		}
		s->args[i].s = s;
		s->args[i].i = i;
		int e = pthread_create(&s->threads[i], &attr, pbw_waiter, &s->args[i]);
		pthread_attr_destroy(&attr);
		if (e != 0) {
			pbw_release(s);
			pbw_join_all(s);
			pbw_destroy(s);
			*err = e;
			return NULL;
		}
		s->created++;
	}
	return s;
}

int pbw_counted(pbw_set *s) { return atomic_load(&s->counted); }
int64_t pbw_tid(pbw_set *s, int i) { return atomic_load(&s->slots[i].tid); }
int pbw_pin_error(pbw_set *s, int i) { return s->slots[i].pin_err; }

void pbw_fire(pbw_set *s, int op, int k, int64_t *per_call, long cap, int64_t bound_ns, int64_t settle_ns, pbw_result *res) {
	int flag = s->kind == PBW_FUTEX ? FUTEX_PRIVATE_FLAG : 0;
	long calls = 0, done = 0;
	int64_t t0, prev, t;
	memset(res, 0, sizeof *res);
	if (settle_ns > 0) {
		struct timespec d = {settle_ns / 1000000000LL, settle_ns % 1000000000LL};
		while (nanosleep(&d, &d) != 0 && errno == EINTR)
			;
	}
	switch (op) {
	case PBW_OP_BROADCAST:
	case PBW_OP_SIGNAL:
		// The predicate is set under the mutex before the clock starts,
		// as a condvar's user does; only the notify calls are timed.
		pthread_mutex_lock(&s->mu);
		s->released = 1;
		pthread_mutex_unlock(&s->mu);
		t0 = prev = pbw_now();
		if (op == PBW_OP_BROADCAST) {
			pthread_cond_broadcast(&s->cv);
			t = pbw_now();
			if (cap > 0)
				per_call[0] = t - prev;
			prev = t;
			calls = 1;
		} else {
			for (int i = 0; i < s->n; i++) {
				pthread_cond_signal(&s->cv);
				t = pbw_now();
				if (calls < cap)
					per_call[calls] = t - prev;
				prev = t;
				calls++;
			}
		}
		done = -1;
		break;
	case PBW_OP_WAKE:
	case PBW_OP_REQUEUE:
		// perf's loops: futex-wake.c:203-205 (wake k at a time until all
		// are woken) and futex-requeue.c:179-187 at commit 0959046303
		// (CMP_REQUEUE waking none and moving k at a time).
		t0 = prev = pbw_now();
		while (done < s->n) {
			long r;
			if (op == PBW_OP_WAKE)
				r = pbw_futex(&s->word1, FUTEX_WAKE | flag, k, 0, NULL, 0);
			else
				r = pbw_futex(&s->word1, FUTEX_CMP_REQUEUE | flag, 0, k, &s->word2, 0);
			if (r > 0)
				done += r;
			t = pbw_now();
			if (calls < cap)
				per_call[calls] = t - prev;
			prev = t;
			calls++;
			if (t - t0 > bound_ns) {
				res->timed_out = 1;
				break;
			}
		}
		// Everybody is on word2 now; perf wakes them untimed
		// (futex-requeue.c:202).
		if (op == PBW_OP_REQUEUE)
			pbw_futex(&s->word2, FUTEX_WAKE | flag, INT_MAX, 0, NULL, 0);
		break;
	default:
		t0 = prev = pbw_now();
		res->timed_out = 1;
	}
	res->total_ns = prev - t0;
	res->calls = calls;
	res->done = done;
}

int pbw_join(pbw_set *s, int64_t timeout_ns) {
	int64_t deadline = pbw_now() + timeout_ns;
	int rc = 0;
	while (atomic_load(&s->exited) < s->created) {
		if (pbw_now() > deadline) {
			rc = ETIMEDOUT;
			pbw_release(s);
			break;
		}
		struct timespec d = {0, 50000};
		nanosleep(&d, NULL);
	}
	pbw_join_all(s);
	return rc;
}

void pbw_free(pbw_set *s) {
	if (!s->joined) {
		pbw_release(s);
		pbw_join_all(s);
	}
	pbw_destroy(s);
}

// The producer/consumer (pbw_pc).
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t not_full, not_empty;
	long *buf;
	int cap, head, count; // under mu
	long items;
	int lock_held;
	int abort; // under mu: the watchdog gave up
	pthread_barrier_t start;
	int64_t t_start, t_end;
	int64_t csw[2], waits[2];
	int err;
	// The watchdog sleeps on done_cv until finished or the deadline.
	pthread_mutex_t done_mu;
	pthread_cond_t done_cv;
	int finished;
	int64_t deadline;
} pbw_pc_state;

static void *pbw_producer(void *p) {
	pbw_pc_state *q = p;
	int64_t c0 = pbw_thread_csw(), waits = 0;
	pthread_barrier_wait(&q->start);
	q->t_start = pbw_now();
	for (long i = 0; i < q->items; i++) {
		pthread_mutex_lock(&q->mu);
		while (q->count == q->cap && !q->abort) {
			waits++;
			pthread_cond_wait(&q->not_full, &q->mu);
		}
		if (q->abort) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		q->buf[(q->head + q->count) % q->cap] = i;
		q->count++;
		if (q->lock_held) {
			pthread_cond_signal(&q->not_empty);
			pthread_mutex_unlock(&q->mu);
		} else {
			pthread_mutex_unlock(&q->mu);
			pthread_cond_signal(&q->not_empty);
		}
	}
	q->csw[0] = pbw_thread_csw() - c0;
	q->waits[0] = waits;
	return NULL;
}

static void *pbw_consumer(void *p) {
	pbw_pc_state *q = p;
	int64_t c0 = pbw_thread_csw(), waits = 0;
	int err = 0;
	pthread_barrier_wait(&q->start);
	for (long i = 0; i < q->items; i++) {
		pthread_mutex_lock(&q->mu);
		while (q->count == 0 && !q->abort) {
			waits++;
			pthread_cond_wait(&q->not_empty, &q->mu);
		}
		if (q->abort) {
			pthread_mutex_unlock(&q->mu);
			break;
		}
		long v = q->buf[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		if (v != i)
			err = EPROTO;
		if (q->lock_held) {
			pthread_cond_signal(&q->not_full);
			pthread_mutex_unlock(&q->mu);
		} else {
			pthread_mutex_unlock(&q->mu);
			pthread_cond_signal(&q->not_full);
		}
	}
	q->t_end = pbw_now();
	q->csw[1] = pbw_thread_csw() - c0;
	q->waits[1] = waits;
	q->err = err;
	return NULL;
}

static void *pbw_watchdog(void *p) {
	pbw_pc_state *q = p;
	struct timespec ts = {q->deadline / 1000000000LL, q->deadline % 1000000000LL};
	pthread_mutex_lock(&q->done_mu);
	while (!q->finished) {
		if (pthread_cond_timedwait(&q->done_cv, &q->done_mu, &ts) == ETIMEDOUT && !q->finished) {
			pthread_mutex_lock(&q->mu);
			q->abort = 1;
			pthread_cond_broadcast(&q->not_full);
			pthread_cond_broadcast(&q->not_empty);
			pthread_mutex_unlock(&q->mu);
			break;
		}
	}
	pthread_mutex_unlock(&q->done_mu);
	return NULL;
}

void pbw_pc(long items, int cap, int lock_held, int64_t bound_ns, pbw_pc_result *res) {
	pbw_pc_state q;
	pthread_t prod, cons, dog;
	pthread_condattr_t ca;
	memset(&q, 0, sizeof q);
	memset(res, 0, sizeof *res);
	q.buf = calloc(cap, sizeof *q.buf);
	if (!q.buf) {
		res->err = ENOMEM;
		return;
	}
	q.cap = cap;
	q.items = items;
	q.lock_held = lock_held;
	pthread_mutex_init(&q.mu, NULL);
	pthread_cond_init(&q.not_full, NULL);
	pthread_cond_init(&q.not_empty, NULL);
	pthread_barrier_init(&q.start, NULL, 2);
	pthread_mutex_init(&q.done_mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q.done_cv, &ca);
	pthread_condattr_destroy(&ca);
	q.deadline = pbw_now() + bound_ns;
	int e = pthread_create(&dog, NULL, pbw_watchdog, &q);
	if (e == 0) {
		e = pthread_create(&cons, NULL, pbw_consumer, &q);
		if (e == 0) {
			e = pthread_create(&prod, NULL, pbw_producer, &q);
			if (e != 0) {
				// The consumer waits at the barrier for a producer that
				// will never come: stand in for it, then abort.
				pthread_mutex_lock(&q.mu);
				q.abort = 1;
				pthread_mutex_unlock(&q.mu);
				pthread_barrier_wait(&q.start);
			} else {
				pthread_join(prod, NULL);
			}
			pthread_join(cons, NULL);
		}
		pthread_mutex_lock(&q.done_mu);
		q.finished = 1;
		pthread_cond_signal(&q.done_cv);
		pthread_mutex_unlock(&q.done_mu);
		pthread_join(dog, NULL);
	}
	if (e != 0)
		res->err = e;
	else if (q.abort)
		res->err = ETIMEDOUT;
	else
		res->err = q.err;
	res->elapsed_ns = q.t_end - q.t_start;
	res->switches = q.csw[0] + q.csw[1];
	res->waits = q.waits[0] + q.waits[1];
	pthread_barrier_destroy(&q.start);
	pthread_cond_destroy(&q.not_full);
	pthread_cond_destroy(&q.not_empty);
	pthread_mutex_destroy(&q.mu);
	pthread_cond_destroy(&q.done_cv);
	pthread_mutex_destroy(&q.done_mu);
	free(q.buf);
}
