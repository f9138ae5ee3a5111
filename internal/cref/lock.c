//go:build linux && cgo

// The C side of parkbench lock; the contract is in lock.h and lock_cgo.go
// is the Go side.

#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lock.h"

// The histogram is the ABI's (parkbench.h), which a library's own loop
// fills the same way.
_Static_assert(PB_LK_BUCKETS == PB_HIST_BUCKETS, "lock.h's histogram is parkbench.h's");
static inline int pb_lk_bucket(uint64_t v) { return pb_hist_bucket(v); }

static inline void pb_lk_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static inline int64_t pb_lk_now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void pb_lk_sleep(int64_t ns) {
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };
	nanosleep(&ts, NULL);
}

// The spin lock: test-and-test-and-set; while the word is taken, read it
// with a pause between reads, doubling the pauses up to 1024 (bounded
// exponential backoff).
static inline void pb_lk_spin_lock(_Atomic uint32_t *w) {
	unsigned backoff = 1;
	for (;;) {
		if (atomic_load_explicit(w, memory_order_relaxed) == 0 &&
		    atomic_exchange_explicit(w, 1, memory_order_acquire) == 0)
			return;
		while (atomic_load_explicit(w, memory_order_relaxed) != 0) {
			for (unsigned i = 0; i < backoff; i++) pb_lk_relax();
			if (backoff < 1024) backoff <<= 1;
		}
	}
}

static inline void pb_lk_spin_unlock(_Atomic uint32_t *w) {
	atomic_store_explicit(w, 0, memory_order_release);
}

// pb_lk_mutex_init initialises a mutex of mode: PB_LK_PTHREAD_PI with
// PTHREAD_PRIO_INHERIT (glibc's PI mutex: FUTEX_LOCK_PI on contention), the
// others with the default attributes. It returns pthread's error.
static int pb_lk_mutex_init(int mode, pthread_mutex_t *mu) {
	if (mode != PB_LK_PTHREAD_PI) return pthread_mutex_init(mu, NULL);
	pthread_mutexattr_t a;
	int e = pthread_mutexattr_init(&a);
	if (e == 0) e = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	if (e == 0) e = pthread_mutex_init(mu, &a);
	pthread_mutexattr_destroy(&a);
	return e;
}

static inline void pb_lk_acquire(int mode, const struct pb_mutex *ops, pb_lk *l) {
	if (mode == PB_LK_PTHREAD || mode == PB_LK_PTHREAD_PI) pthread_mutex_lock(&l->mu);
	else if (mode == PB_LK_PLUGIN || mode == PB_LK_OWN) ops->lock(l->pm);
	else pb_lk_spin_lock(&l->spin);
}

static inline void pb_lk_release(int mode, const struct pb_mutex *ops, pb_lk *l) {
	if (mode == PB_LK_PTHREAD || mode == PB_LK_PTHREAD_PI) pthread_mutex_unlock(&l->mu);
	else if (mode == PB_LK_PLUGIN || mode == PB_LK_OWN) ops->unlock(l->pm);
	else pb_lk_spin_unlock(&l->spin);
}

// pb_lk_own is one thread of a PB_LK_OWN run: the gate, then the
// library's own loop on lock 0 (pattern loop, one lock: lock.go says so),
// watched with the slot's progress word as the loop's count.
static void *pb_lk_own(pb_lk_arg *a) {
	pb_lk_run *r = a->r;
	pb_lk_slot *s = &r->slots[a->i];
	pb_lk *l = &r->locks[0];
	pbwd_slot spare, *w = cref_wslot(r->f, &spare);
	const int64_t mask = r->sample_mask;
	const int check_all = !(r->nlocks == 1 && r->win == 0 && r->wbetween == 0);
	double value = 0;
	struct pb_lock_loop args = {
		.size = sizeof args, .mutex = l->pm, .stop = (const uint32_t *)&r->stop,
		.count = (uint64_t *)&w->progress, .guarded = &l->n, .shared = &l->value, .hist = s->hist,
		.value = &value, .sample_mask = (uint64_t)mask, .work_in = r->win, .work_between = r->wbetween,
		.check_all = check_all,
	};
	// The count starts at 0 (the word is the thread's own).
	atomic_store_explicit(&w->progress, 0, memory_order_relaxed);
	r->wslots[a->i] = w;
	pthread_mutex_lock(&r->gate_mu);
	r->ready++;
	pthread_cond_broadcast(&r->gate_cv);
	while (!r->go) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
	pbwd_enter(w, cref_site(r->f, PBWD_OWN_LOCK));
	uint64_t n = r->f->loops->lock(&args);
	pbwd_leave(w);
	s->count = (int64_t)n;
	s->counted = (int64_t)atomic_load_explicit(&w->progress, memory_order_relaxed);
	s->checked = check_all ? s->count : (s->count + mask) / (mask + 1);
	s->value = value;
	return NULL;
}

static void *pb_lk_thread(void *p) {
	pb_lk_arg *a = p;
	pb_lk_run *r = a->r;
	if (r->mode == PB_LK_OWN) return pb_lk_own(a);
	pb_lk_slot *s = &r->slots[a->i];
	const int mode = r->mode, win = r->win, wbetween = r->wbetween, nlocks = r->nlocks;
	const struct pb_mutex *ops = r->ops;
	const int64_t mask = r->pattern == PB_LK_SKEW ? 0 : r->sample_mask;
	const int sleeper = r->pattern == PB_LK_SKEW && a->i == 1;
	// As the Go loops (internal/experiments/lock/loop.go, loopOne): with
	// no work and one lock only the timed acquisitions count under the
	// lock (the mutual-exclusion check), every one otherwise; the caller
	// knows which (lock.go, LockRunConfig).
	const int check_all = !(r->pattern == PB_LK_LOOP && nlocks == 1 && win == 0 && wbetween == 0);
	uint64_t rng = r->seed ^ ((uint64_t)(a->i + 1) * 0x9E3779B97F4A7C15ull);
	double value = 0, local = 0;
	int64_t n = 0;
	pbwd_slot spare, *w = cref_wslot(r->f, &spare);
	pthread_mutex_lock(&r->gate_mu);
	r->ready++;
	pthread_cond_broadcast(&r->gate_cv);
	while (!r->go) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
	// Watched from the gate to the stop flag: the count of acquisitions
	// is the progress.
	pbwd_enter(w, cref_site(r->f, PBWD_LOOP_LOCK));
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		pbwd_progress(w, (uint64_t)n);
		pb_lk *l = &r->locks[0];
		if (nlocks > 1) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			l = &r->locks[rng % (uint64_t)nlocks];
		}
		if (sleeper) pb_lk_sleep(r->hold_sleep_ns);
		int sample = (n & mask) == 0;
		int64_t t0 = 0, t1 = 0;
		if (sample) t0 = pb_lk_now();
		pb_lk_acquire(mode, ops, l);
		if (sample) t1 = pb_lk_now();
		if (check_all || sample) l->n++;
		if (r->pattern == PB_LK_LOOP) {
			for (int k = 0; k < win; k++) {
				l->value += value;
				l->value *= 1.01;
				value = l->value;
			}
		} else if (!sleeper) {
			pb_lk_sleep(r->hold_sleep_ns);
		}
		pb_lk_release(mode, ops, l);
		// Recorded after the release: the histogram is not written
		// under the lock.
		if (sample) s->hist[pb_lk_bucket((uint64_t)(t1 - t0))]++;
		for (int k = 0; k < wbetween; k++) {
			local += value;
			local *= 1.01;
			value = local;
		}
		n++;
	}
	pbwd_leave(w);
	s->count = n;
	// The timed acquisitions are those numbered 0, mask+1, 2(mask+1), ...
	s->checked = check_all ? n : (n + mask) / (mask + 1);
	s->value = value;
	return NULL;
}

void pb_lk_free(pb_lk_run *r) {
	pthread_mutex_destroy(&r->gate_mu);
	pthread_cond_destroy(&r->gate_cv);
	free(r->locks); free(r->slots); free(r->wslots); free(r);
}

static int64_t pb_lk_cpu(void) {
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ((int64_t)ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000 +
	       ((int64_t)ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

// pb_lk_run_once starts the threads, releases them together through the
// gate once all have arrived, sleeps duration_ns, sets
// stop (relaxed, as mutex.rs's keep_going) and joins. On success it
// returns the run (free with pb_lk_free) and wall/cpu; NULL and *err on
// failure.
// pb_lk_create and pb_lk_destroy are f's create and destroy on the
// calling thread, watched.
static void *pb_lk_create(const pbwd_foreign *f) {
	pbwd_slot spare, *w = cref_wslot(f, &spare);
	pbwd_enter(w, cref_site(f, PBWD_CREATE));
	void *m = f->impl->mutex->create();
	pbwd_leave(w);
	return m;
}

static void pb_lk_destroy(const pbwd_foreign *f, void *m) {
	pbwd_slot spare, *w = cref_wslot(f, &spare);
	pbwd_enter(w, cref_site(f, PBWD_DESTROY));
	f->impl->mutex->destroy(m);
	pbwd_leave(w);
}

pb_lk_run *pb_lk_run_once(int mode, const pbwd_foreign *f, int pattern, int nthreads, int nlocks, int win, int wbetween,
		int64_t hold_sleep_ns, int64_t duration_ns, int sample_every, uint64_t seed,
		int64_t *wall, int64_t *cpu, int *err) {
	pb_lk_run *r = calloc(1, sizeof *r);
	if (!r) { *err = ENOMEM; return NULL; }
	const int foreign = mode == PB_LK_PLUGIN || mode == PB_LK_OWN;
	const struct pb_mutex *ops = foreign ? f->impl->mutex : NULL;
	r->mode = mode; r->ops = ops; r->f = foreign ? f : NULL; r->pattern = pattern; r->nthreads = nthreads; r->nlocks = nlocks;
	r->win = win; r->wbetween = wbetween; r->sample_mask = sample_every - 1;
	r->hold_sleep_ns = hold_sleep_ns; r->seed = seed | 1;
	r->locks = aligned_alloc(64, sizeof(pb_lk) * (size_t)nlocks);
	r->slots = aligned_alloc(64, sizeof(pb_lk_slot) * (size_t)nthreads);
	r->wslots = calloc((size_t)nthreads, sizeof *r->wslots);
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	pb_lk_arg *args = calloc((size_t)nthreads, sizeof *args);
	if (!r->locks || !r->slots || !r->wslots || !th || !args) {
		free(r->locks); free(r->slots); free(r->wslots); free(th); free(args); free(r);
		*err = ENOMEM;
		return NULL;
	}
	memset(r->locks, 0, sizeof(pb_lk) * (size_t)nlocks);
	memset(r->slots, 0, sizeof(pb_lk_slot) * (size_t)nthreads);
	for (int i = 0; i < nlocks; i++) {
		pb_lk_mutex_init(mode, &r->locks[i].mu);
		if (foreign) r->locks[i].pm = pb_lk_create(f);
	}
	pthread_mutex_init(&r->gate_mu, NULL);
	pthread_cond_init(&r->gate_cv, NULL);
	int started = 0;
	for (; started < nthreads; started++) {
		args[started] = (pb_lk_arg){ r, started };
		int e = pthread_create(&th[started], NULL, pb_lk_thread, &args[started]);
		if (e != 0) { *err = e; break; }
	}
	pthread_mutex_lock(&r->gate_mu);
	while (r->ready < started) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	if (started < nthreads) atomic_store(&r->stop, 1); // they leave at once
	r->go = 1;
	pthread_cond_broadcast(&r->gate_cv);
	pthread_mutex_unlock(&r->gate_mu);
	if (started < nthreads) {
		for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
		free(th); free(args);
		pb_lk_free(r);
		return NULL;
	}
	int64_t t0 = pb_lk_now(), c0 = pb_lk_cpu();
	pb_lk_sleep(duration_ns);
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
	*wall = pb_lk_now() - t0;
	*cpu = pb_lk_cpu() - c0;
	// A library's own loop must return now: its count no longer tells
	// the watchdog it moves (watch.h, pbwd_told_stop).
	if (mode == PB_LK_OWN)
		for (int i = 0; i < nthreads; i++) pbwd_told_stop(r->wslots[i]);
	for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
	for (int i = 0; i < nlocks; i++) {
		pthread_mutex_destroy(&r->locks[i].mu);
		if (foreign) pb_lk_destroy(f, r->locks[i].pm);
	}
	free(th); free(args);
	return r;
}

int64_t pb_lk_count(pb_lk_run *r, int i) { return r->slots[i].count; }

int64_t pb_lk_counted(pb_lk_run *r, int i) { return r->slots[i].counted; }

int64_t pb_lk_checked(pb_lk_run *r) {
	int64_t n = 0;
	for (int i = 0; i < r->nthreads; i++) n += r->slots[i].checked;
	return n;
}

int64_t pb_lk_locked(pb_lk_run *r) {
	int64_t n = 0;
	for (int i = 0; i < r->nlocks; i++) n += r->locks[i].n;
	return n;
}

int64_t pb_lk_hist(pb_lk_run *r, int i, int b) { return r->slots[i].hist[b]; }

// pb_lk_work is the thread loop's work inside the lock, in a function of
// its own that the calibration cannot see through.
__attribute__((noinline)) static double pb_lk_work(pb_lk *l, double value, long iters) {
	for (long k = 0; k < iters; k++) {
		l->value += value;
		l->value *= 1.01;
		value = l->value;
	}
	return value;
}

// pb_lk_work_ns is the C work unit's cost: ns per iteration of mutex.rs's
// dependent float loop, over iters iterations, compiled as in the thread
// loop (the shared value may live in a register for the loop's length).
double pb_lk_work_ns(long iters) {
	static pb_lk l;
	static double sink;
	int64_t t0 = pb_lk_now();
	sink += pb_lk_work(&l, sink, iters);
	return (double)(pb_lk_now() - t0) / (double)iters;
}

// pb_lk_uncontended_ns is one thread's lock+unlock pair of mode, in ns.
double pb_lk_uncontended_ns(int mode, const pbwd_foreign *f, long iters) {
	// A library's own loop runs until a stop flag, not for iters pairs:
	// its uncontended pair is the function pointers' (lock.go says so).
	if (mode == PB_LK_OWN) mode = PB_LK_PLUGIN;
	if (mode != PB_LK_PLUGIN) f = NULL;
	const struct pb_mutex *ops = f != NULL ? f->impl->mutex : NULL;
	pb_lk *l = aligned_alloc(64, sizeof(pb_lk));
	if (!l) return -1;
	memset(l, 0, sizeof *l);
	pb_lk_mutex_init(mode, &l->mu);
	if (mode == PB_LK_PLUGIN) l->pm = pb_lk_create(f);
	pbwd_slot spare, *w = cref_wslot(f, &spare);
	pbwd_enter(w, cref_site(f, PBWD_LOOP_LOCK));
	int64_t t0 = pb_lk_now();
	for (long k = 0; k < iters; k++) {
		pbwd_progress(w, (uint64_t)k);
		pb_lk_acquire(mode, ops, l);
		pb_lk_release(mode, ops, l);
	}
	int64_t t1 = pb_lk_now();
	pbwd_leave(w);
	pthread_mutex_destroy(&l->mu);
	if (mode == PB_LK_PLUGIN) pb_lk_destroy(f, l->pm);
	free(l);
	return (double)(t1 - t0) / (double)iters;
}

// The Go pthread implementation's mutex: padded like the benchmark's.
pb_lk *pb_mutex_new(void) {
	pb_lk *l = aligned_alloc(64, sizeof(pb_lk));
	if (!l) return NULL;
	memset(l, 0, sizeof *l);
	pthread_mutex_init(&l->mu, NULL);
	return l;
}

// pb_mutex_new_pi is pb_mutex_new with PTHREAD_PRIO_INHERIT (NULL and
// *err on failure).
pb_lk *pb_mutex_new_pi(int *err) {
	pb_lk *l = aligned_alloc(64, sizeof(pb_lk));
	if (!l) { *err = ENOMEM; return NULL; }
	memset(l, 0, sizeof *l);
	if ((*err = pb_lk_mutex_init(PB_LK_PTHREAD_PI, &l->mu)) != 0) { free(l); return NULL; }
	return l;
}

void pb_mutex_free(pb_lk *l) { pthread_mutex_destroy(&l->mu); free(l); }

static void *pb_rw_thread(void *p) {
	pb_rw_arg *a = p;
	pb_rw_run *r = a->r;
	pb_rw_slot *s = &r->slots[a->i];
	pb_rw *l = r->lock;
	const int writer = a->i < r->nwriters, win = r->win, wbetween = r->wbetween;
	const int64_t mask = r->sample_mask;
	double value = 0, local = 0;
	int64_t n = 0;
	pthread_mutex_lock(&r->gate_mu);
	r->ready++;
	pthread_cond_broadcast(&r->gate_cv);
	while (!r->go) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		if (writer) {
			int sample = (n & mask) == 0;
			int64_t t0 = 0;
			if (sample) t0 = pb_lk_now();
			pthread_rwlock_wrlock(&l->rw);
			if (sample) {
				int64_t w = pb_lk_now() - t0;
				if (w > s->wait_max) s->wait_max = w;
			}
			atomic_store_explicit(&l->writing, 1, memory_order_relaxed);
			l->n++;
			for (int k = 0; k < win; k++) {
				l->value += value;
				l->value *= 1.01;
				value = l->value;
			}
			atomic_store_explicit(&l->writing, 0, memory_order_relaxed);
			pthread_rwlock_unlock(&l->rw);
		} else {
			pthread_rwlock_rdlock(&l->rw);
			if (atomic_load_explicit(&l->writing, memory_order_relaxed))
				atomic_fetch_add_explicit(&l->overlaps, 1, memory_order_relaxed);
			double shared = l->value;
			for (int k = 0; k < win; k++) {
				local += value;
				local *= shared;
				value = local;
			}
			pthread_rwlock_unlock(&l->rw);
		}
		for (int k = 0; k < wbetween; k++) {
			local += value;
			local *= 1.01;
			value = local;
		}
		n++;
	}
	s->count = n;
	s->value = value;
	return NULL;
}

void pb_rw_free(pb_rw_run *r) {
	pthread_rwlock_destroy(&r->lock->rw);
	pthread_mutex_destroy(&r->gate_mu);
	pthread_cond_destroy(&r->gate_cv);
	free(r->lock); free(r->slots); free(r);
}

// pb_rw_run_once is pb_lk_run_once for the rwlock loop: nwriters writer
// threads (slots 0..nwriters-1) and nreaders readers on one rwlock.
pb_rw_run *pb_rw_run_once(int nreaders, int nwriters, int win, int wbetween,
		int64_t duration_ns, int sample_every, int64_t *wall, int64_t *cpu, int *err) {
	int nthreads = nreaders + nwriters;
	pb_rw_run *r = calloc(1, sizeof *r);
	if (!r) { *err = ENOMEM; return NULL; }
	r->nreaders = nreaders; r->nwriters = nwriters;
	r->win = win; r->wbetween = wbetween; r->sample_mask = sample_every - 1;
	r->lock = aligned_alloc(64, sizeof(pb_rw));
	r->slots = aligned_alloc(64, sizeof(pb_rw_slot) * (size_t)nthreads);
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	pb_rw_arg *args = calloc((size_t)nthreads, sizeof *args);
	if (!r->lock || !r->slots || !th || !args) {
		free(r->lock); free(r->slots); free(th); free(args); free(r);
		*err = ENOMEM;
		return NULL;
	}
	memset(r->lock, 0, sizeof(pb_rw));
	memset(r->slots, 0, sizeof(pb_rw_slot) * (size_t)nthreads);
	pthread_rwlock_init(&r->lock->rw, NULL);
	pthread_mutex_init(&r->gate_mu, NULL);
	pthread_cond_init(&r->gate_cv, NULL);
	int started = 0;
	for (; started < nthreads; started++) {
		args[started] = (pb_rw_arg){ r, started };
		int e = pthread_create(&th[started], NULL, pb_rw_thread, &args[started]);
		if (e != 0) { *err = e; break; }
	}
	pthread_mutex_lock(&r->gate_mu);
	while (r->ready < started) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	if (started < nthreads) atomic_store(&r->stop, 1);
	r->go = 1;
	pthread_cond_broadcast(&r->gate_cv);
	pthread_mutex_unlock(&r->gate_mu);
	if (started < nthreads) {
		for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
		free(th); free(args);
		pb_rw_free(r);
		return NULL;
	}
	int64_t t0 = pb_lk_now(), c0 = pb_lk_cpu();
	pb_lk_sleep(duration_ns);
	atomic_store_explicit(&r->stop, 1, memory_order_relaxed);
	*wall = pb_lk_now() - t0;
	*cpu = pb_lk_cpu() - c0;
	for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
	free(th); free(args);
	return r;
}

int64_t pb_rw_count(pb_rw_run *r, int i) { return r->slots[i].count; }

int64_t pb_rw_wait_max(pb_rw_run *r, int i) { return r->slots[i].wait_max; }

int64_t pb_rw_locked(pb_rw_run *r) { return r->lock->n; }

int64_t pb_rw_overlaps(pb_rw_run *r) { return atomic_load(&r->lock->overlaps); }

// The Go pthread rwlock implementation's lock, padded like the benchmark's.
pb_rw *pb_rwlock_new(void) {
	pb_rw *l = aligned_alloc(64, sizeof(pb_rw));
	if (!l) return NULL;
	memset(l, 0, sizeof *l);
	pthread_rwlock_init(&l->rw, NULL);
	return l;
}

void pb_rwlock_free(pb_rw *l) { pthread_rwlock_destroy(&l->rw); free(l); }
