//go:build linux && cgo

// The C herd (E6's pthread variant); the contract is in herd.h and
// herd_cgo.go is the Go side.

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "herd.h"

static int64_t pb_herd_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t pb_herd_csw(int who) {
	struct rusage ru;
	if (getrusage(who, &ru) != 0) return -1;
	return (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
}

static void pb_herd_csw2(int64_t *all, int64_t *inv) {
	struct rusage ru;
	if (getrusage(RUSAGE_THREAD, &ru) != 0) { *all = *inv = -1; return; }
	*all = (int64_t)ru.ru_nvcsw + (int64_t)ru.ru_nivcsw;
	*inv = (int64_t)ru.ru_nivcsw;
}

static int pb_herd_pin(int cpu) {
	if (cpu < 0) return 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *pb_herd_waiter(void *p) {
	pb_herd_arg *a = p;
	pb_herd *h = a->h;
	pb_herd_slot *s = &h->slots[a->i];
	if (h->waiter_cpus) s->pin_err = pb_herd_pin(h->waiter_cpus[a->i]);
	__atomic_store_n(&s->tid, (int64_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	pthread_mutex_lock(&h->mu);
	h->counted++;
	pb_herd_csw2(&s->csw_pre, &s->inv_pre);
	while (!h->go) {
		pthread_cond_wait(&h->cv, &h->mu);
		s->wait_returns++;
	}
	s->acq_ns = pb_herd_now();
	s->cpu = sched_getcpu();
	s->acquisitions++;
	while (pb_herd_now() - s->acq_ns < h->hold_ns) {
	}
	s->rel_ns = pb_herd_now();
	pthread_mutex_unlock(&h->mu);
	pb_herd_csw2(&s->csw_post, &s->inv_post);
	// Stay until the repeat is over, as the Go waiters do: a thread that
	// exits right after its release would tear itself down on a CPU the
	// next waiter may need, inside the measured chain.
	if (__atomic_add_fetch(&h->released, 1, __ATOMIC_ACQ_REL) == h->n) sem_post(&h->all_released);
	while (sem_wait(&h->finish) != 0 && errno == EINTR) {
	}
	return NULL;
}

static void pb_herd_notify(pb_herd *h) {
	if (h->one_loop) {
		for (int i = 0; i < h->n; i++) pthread_cond_signal(&h->cv);
	} else {
		pthread_cond_broadcast(&h->cv);
	}
}

static void *pb_herd_notifier(void *p) {
	pb_herd *h = p;
	h->notifier_pin_err = pb_herd_pin(h->notifier_cpu);
	while (sem_wait(&h->fire) != 0 && errno == EINTR) {
	}
	h->proc_pre = pb_herd_csw(RUSAGE_SELF);
	h->ncsw_pre = pb_herd_csw(RUSAGE_THREAD);
	pthread_mutex_lock(&h->mu);
	h->go = 1;
	if (h->lock_held) {
		h->notifier_cpu_seen = sched_getcpu();
		h->t0 = pb_herd_now();
		pb_herd_notify(h);
		pthread_mutex_unlock(&h->mu);
	} else {
		pthread_mutex_unlock(&h->mu);
		h->notifier_cpu_seen = sched_getcpu();
		h->t0 = pb_herd_now();
		pb_herd_notify(h);
	}
	// The window ends when the last waiter has released.
	while (sem_wait(&h->all_released) != 0 && errno == EINTR) {
	}
	h->ncsw_post = pb_herd_csw(RUSAGE_THREAD);
	h->proc_post = pb_herd_csw(RUSAGE_SELF);
	for (int i = 0; i < h->started; i++) sem_post(&h->finish);
	for (int i = 0; i < h->started; i++) pthread_join(h->threads[i], NULL);
	h->started = 0;
	sem_post(&h->done);
	return NULL;
}

// pb_herd_start creates the waiters and the notifier. On failure it returns
// NULL with *err set (after joining whatever it started: they are woken).
pb_herd *pb_herd_start(int n, int64_t hold_ns, int one_loop, int lock_held,
                              int notifier_cpu, const int *waiter_cpus, int *err) {
	pb_herd *h = calloc(1, sizeof *h);
	if (!h) { *err = ENOMEM; return NULL; }
	h->n = n; h->hold_ns = hold_ns; h->one_loop = one_loop; h->lock_held = lock_held;
	h->notifier_cpu = notifier_cpu;
	h->slots = calloc(n, sizeof *h->slots);
	h->threads = calloc(n, sizeof *h->threads);
	h->args = NULL;
	if (waiter_cpus) {
		h->waiter_cpus = malloc(n * sizeof(int));
		if (h->waiter_cpus) memcpy(h->waiter_cpus, waiter_cpus, n * sizeof(int));
	}
	pb_herd_arg *args = calloc(n, sizeof *args);
	if (!h->slots || !h->threads || !args || (waiter_cpus && !h->waiter_cpus)) {
		free(args); pb_herd_free(h); *err = ENOMEM; return NULL;
	}
	h->args = args;
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	sem_init(&h->fire, 0, 0);
	sem_init(&h->done, 0, 0);
	sem_init(&h->all_released, 0, 0);
	sem_init(&h->finish, 0, 0);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	int rc = 0;
	for (int i = 0; i < n; i++) {
		args[i].h = h; args[i].i = i;
		rc = pthread_create(&h->threads[i], &attr, pb_herd_waiter, &args[i]);
		if (rc != 0) break;
		h->started++;
	}
	if (rc == 0) {
		rc = pthread_create(&h->notifier, &attr, pb_herd_notifier, h);
		if (rc == 0) h->notifier_started = 1;
	}
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		// Release whoever started, join them, and fail.
		pthread_mutex_lock(&h->mu);
		h->go = 1;
		pthread_cond_broadcast(&h->cv);
		pthread_mutex_unlock(&h->mu);
		for (int i = 0; i < h->started; i++) sem_post(&h->finish);
		for (int i = 0; i < h->started; i++) pthread_join(h->threads[i], NULL);
		h->started = 0;
		pb_herd_free(h);
		*err = rc;
		return NULL;
	}
	return h;
}

int pb_herd_counted(pb_herd *h) {
	pthread_mutex_lock(&h->mu);
	int c = h->counted;
	pthread_mutex_unlock(&h->mu);
	return c;
}

int64_t pb_herd_tid(pb_herd *h, int i) {
	return __atomic_load_n(&h->slots[i].tid, __ATOMIC_ACQUIRE);
}

void pb_herd_fire(pb_herd *h) { sem_post(&h->fire); }

// pb_herd_wait blocks until the notifier has joined every waiter, at most
// timeout_ns; it returns 1 when done, 0 on timeout.
int pb_herd_wait(pb_herd *h, int64_t timeout_ns) {
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t ns = (int64_t)ts.tv_nsec + timeout_ns % 1000000000;
	ts.tv_sec += timeout_ns / 1000000000 + ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	for (;;) {
		if (sem_timedwait(&h->done, &ts) == 0) break;
		if (errno == ETIMEDOUT) return 0;
	}
	pthread_join(h->notifier, NULL);
	h->notifier_started = 0;
	return 1;
}

pb_herd_slot *pb_herd_slots(pb_herd *h) { return h->slots; }

void pb_herd_free(pb_herd *h) {
	if (!h) return;
	free(h->slots); free(h->threads); free(h->waiter_cpus); free(h->args);
	free(h);
}
