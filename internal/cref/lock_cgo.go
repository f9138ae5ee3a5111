//go:build linux && cgo

package cref

// The C side of parkbench lock: a pthread_mutex_t the Go `pthread`
// implementation locks through one cgo call per Lock and per Unlock, and
// the whole benchmark loop of parking_lot's benchmark/src/bin/mutex.rs
// (run_benchmark) in C threads (pthread_create), with no Go runtime and no
// cgo crossing per acquisition: the c-pthread and c-spin floor.

/*
#cgo CFLAGS: -O2 -std=gnu11
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

enum { PB_LK_PTHREAD = 0, PB_LK_SPIN = 1 };
enum { PB_LK_LOOP = 0, PB_LK_HOLDSLEEP = 1, PB_LK_SKEW = 2 };

// Wait histogram: values below 256 ns exactly, above that 128 sub-buckets
// per power of two up to 2^40 ns.
#define PB_LK_BUCKETS (256 + 33 * 128)

static inline int pb_lk_bucket(uint64_t v) {
	if (v < 256) return (int)v;
	int e = 63 - __builtin_clzll(v); // e >= 8
	if (e > 40) return PB_LK_BUCKETS - 1;
	return 256 + (e - 8) * 128 + (int)((v >> (e - 7)) - 128);
}

static inline int64_t pb_lk_bucket_low(int i) {
	if (i < 256) return i;
	int e = 8 + (i - 256) / 128;
	int64_t m = 128 + (i - 256) % 128;
	return m << (e - 7);
}

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

// One lock between pads, as mutex.rs's ([0u8; 300], M::new(0.0), [0u8; 300]):
// the protected f64 sits with the lock word.
typedef struct {
	char pad0[320];
	pthread_mutex_t mu;
	_Atomic uint32_t spin;
	int64_t n;      // acquisitions counted under the lock: the mutual-exclusion check
	double value;
	char pad1[320];
} pb_lk;

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

static inline void pb_lk_acquire(int mode, pb_lk *l) {
	if (mode == PB_LK_PTHREAD) pthread_mutex_lock(&l->mu);
	else pb_lk_spin_lock(&l->spin);
}

static inline void pb_lk_release(int mode, pb_lk *l) {
	if (mode == PB_LK_PTHREAD) pthread_mutex_unlock(&l->mu);
	else pb_lk_spin_unlock(&l->spin);
}

typedef struct {
	int64_t count;
	double value;   // keeps the work live
	int64_t hist[PB_LK_BUCKETS];
	char pad[64];
} pb_lk_slot;

typedef struct {
	int mode, pattern, nthreads, nlocks, win, wbetween, sample_mask;
	int64_t hold_sleep_ns;
	uint64_t seed;
	pb_lk *locks;
	pb_lk_slot *slots;
	// The start gate, as mutex.rs's std::sync::Barrier (a mutex and a
	// condvar, notify_all when the last party arrives).
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	int ready, go;
	char pad0[64];
	_Atomic int stop;
	char pad1[64];
} pb_lk_run;

typedef struct { pb_lk_run *r; int i; } pb_lk_arg;

static void *pb_lk_thread(void *p) {
	pb_lk_arg *a = p;
	pb_lk_run *r = a->r;
	pb_lk_slot *s = &r->slots[a->i];
	const int mode = r->mode, win = r->win, wbetween = r->wbetween, nlocks = r->nlocks;
	const int64_t mask = r->pattern == PB_LK_SKEW ? 0 : r->sample_mask;
	const int sleeper = r->pattern == PB_LK_SKEW && a->i == 1;
	uint64_t rng = r->seed ^ ((uint64_t)(a->i + 1) * 0x9E3779B97F4A7C15ull);
	double value = 0, local = 0;
	int64_t n = 0;
	pthread_mutex_lock(&r->gate_mu);
	r->ready++;
	pthread_cond_broadcast(&r->gate_cv);
	while (!r->go) pthread_cond_wait(&r->gate_cv, &r->gate_mu);
	pthread_mutex_unlock(&r->gate_mu);
	while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
		pb_lk *l = &r->locks[0];
		if (nlocks > 1) {
			rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
			l = &r->locks[rng % (uint64_t)nlocks];
		}
		if (sleeper) pb_lk_sleep(r->hold_sleep_ns);
		int sample = (n & mask) == 0;
		int64_t t0 = 0;
		if (sample) t0 = pb_lk_now();
		pb_lk_acquire(mode, l);
		if (sample) s->hist[pb_lk_bucket((uint64_t)(pb_lk_now() - t0))]++;
		l->n++;
		if (r->pattern == PB_LK_LOOP) {
			for (int k = 0; k < win; k++) {
				l->value += value;
				l->value *= 1.01;
				value = l->value;
			}
		} else if (!sleeper) {
			pb_lk_sleep(r->hold_sleep_ns);
		}
		pb_lk_release(mode, l);
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

static void pb_lk_free(pb_lk_run *r) {
	pthread_mutex_destroy(&r->gate_mu);
	pthread_cond_destroy(&r->gate_cv);
	free(r->locks); free(r->slots); free(r);
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
static pb_lk_run *pb_lk_run_once(int mode, int pattern, int nthreads, int nlocks, int win, int wbetween,
		int64_t hold_sleep_ns, int64_t duration_ns, int sample_every, uint64_t seed,
		int64_t *wall, int64_t *cpu, int *err) {
	pb_lk_run *r = calloc(1, sizeof *r);
	if (!r) { *err = ENOMEM; return NULL; }
	r->mode = mode; r->pattern = pattern; r->nthreads = nthreads; r->nlocks = nlocks;
	r->win = win; r->wbetween = wbetween; r->sample_mask = sample_every - 1;
	r->hold_sleep_ns = hold_sleep_ns; r->seed = seed | 1;
	r->locks = aligned_alloc(64, sizeof(pb_lk) * (size_t)nlocks);
	r->slots = aligned_alloc(64, sizeof(pb_lk_slot) * (size_t)nthreads);
	pthread_t *th = calloc((size_t)nthreads, sizeof *th);
	pb_lk_arg *args = calloc((size_t)nthreads, sizeof *args);
	if (!r->locks || !r->slots || !th || !args) {
		free(r->locks); free(r->slots); free(th); free(args); free(r);
		*err = ENOMEM;
		return NULL;
	}
	memset(r->locks, 0, sizeof(pb_lk) * (size_t)nlocks);
	memset(r->slots, 0, sizeof(pb_lk_slot) * (size_t)nthreads);
	for (int i = 0; i < nlocks; i++) pthread_mutex_init(&r->locks[i].mu, NULL);
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
	for (int i = 0; i < nthreads; i++) pthread_join(th[i], NULL);
	for (int i = 0; i < nlocks; i++) pthread_mutex_destroy(&r->locks[i].mu);
	free(th); free(args);
	return r;
}

static int64_t pb_lk_count(pb_lk_run *r, int i) { return r->slots[i].count; }
static int64_t pb_lk_locked(pb_lk_run *r) {
	int64_t n = 0;
	for (int i = 0; i < r->nlocks; i++) n += r->locks[i].n;
	return n;
}
static int64_t pb_lk_hist(pb_lk_run *r, int i, int b) { return r->slots[i].hist[b]; }

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
static double pb_lk_work_ns(long iters) {
	static pb_lk l;
	static double sink;
	int64_t t0 = pb_lk_now();
	sink += pb_lk_work(&l, sink, iters);
	return (double)(pb_lk_now() - t0) / (double)iters;
}

// pb_lk_uncontended_ns is one thread's lock+unlock pair of mode, in ns.
static double pb_lk_uncontended_ns(int mode, long iters) {
	pb_lk *l = aligned_alloc(64, sizeof(pb_lk));
	if (!l) return -1;
	memset(l, 0, sizeof *l);
	pthread_mutex_init(&l->mu, NULL);
	int64_t t0 = pb_lk_now();
	for (long k = 0; k < iters; k++) {
		pb_lk_acquire(mode, l);
		pb_lk_release(mode, l);
	}
	int64_t t1 = pb_lk_now();
	pthread_mutex_destroy(&l->mu);
	free(l);
	return (double)(t1 - t0) / (double)iters;
}

// The Go pthread implementation's mutex: padded like the benchmark's.
static pb_lk *pb_mutex_new(void) {
	pb_lk *l = aligned_alloc(64, sizeof(pb_lk));
	if (!l) return NULL;
	memset(l, 0, sizeof *l);
	pthread_mutex_init(&l->mu, NULL);
	return l;
}
static void pb_mutex_lock(pb_lk *l) { pthread_mutex_lock(&l->mu); }
static void pb_mutex_unlock(pb_lk *l) { pthread_mutex_unlock(&l->mu); }
static void pb_mutex_free(pb_lk *l) { pthread_mutex_destroy(&l->mu); free(l); }
static void pb_nop(void) {}

// --- parkbench lock --rwlock: pthread_rwlock_t, from Go through cgo and
// as the whole loop of parking_lot's benchmark/src/bin/rwlock.rs
// (run_benchmark) in C threads.

// One rwlock between pads, as rwlock.rs's ([0u8; 300], M::new(0.0), [0u8; 300]).
// writing is set by a writer inside the write lock and cleared before it
// unlocks: a reader that sees it set overlapped a writer (overlaps counts).
typedef struct {
	char pad0[320];
	pthread_rwlock_t rw;
	int64_t n;          // write acquisitions counted under the write lock
	_Atomic int writing;
	_Atomic int64_t overlaps;
	double value;
	char pad1[320];
} pb_rw;

typedef struct {
	int64_t count;
	int64_t wait_max;   // writers: the longest sampled wait, ns
	double value;
	char pad[64];
} pb_rw_slot;

typedef struct {
	int nreaders, nwriters, win, wbetween, sample_mask;
	pb_rw *lock;
	pb_rw_slot *slots;  // writers first, then readers
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	int ready, go;
	char pad0[64];
	_Atomic int stop;
	char pad1[64];
} pb_rw_run;

typedef struct { pb_rw_run *r; int i; } pb_rw_arg;

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

static void pb_rw_free(pb_rw_run *r) {
	pthread_rwlock_destroy(&r->lock->rw);
	pthread_mutex_destroy(&r->gate_mu);
	pthread_cond_destroy(&r->gate_cv);
	free(r->lock); free(r->slots); free(r);
}

// pb_rw_run_once is pb_lk_run_once for the rwlock loop: nwriters writer
// threads (slots 0..nwriters-1) and nreaders readers on one rwlock.
static pb_rw_run *pb_rw_run_once(int nreaders, int nwriters, int win, int wbetween,
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

static int64_t pb_rw_count(pb_rw_run *r, int i) { return r->slots[i].count; }
static int64_t pb_rw_wait_max(pb_rw_run *r, int i) { return r->slots[i].wait_max; }
static int64_t pb_rw_locked(pb_rw_run *r) { return r->lock->n; }
static int64_t pb_rw_overlaps(pb_rw_run *r) { return atomic_load(&r->lock->overlaps); }

// The Go pthread rwlock implementation's lock, padded like the benchmark's.
static pb_rw *pb_rwlock_new(void) {
	pb_rw *l = aligned_alloc(64, sizeof(pb_rw));
	if (!l) return NULL;
	memset(l, 0, sizeof *l);
	pthread_rwlock_init(&l->rw, NULL);
	return l;
}
static void pb_rwlock_rdlock(pb_rw *l) { pthread_rwlock_rdlock(&l->rw); }
static void pb_rwlock_wrlock(pb_rw *l) { pthread_rwlock_wrlock(&l->rw); }
static void pb_rwlock_unlock(pb_rw *l) { pthread_rwlock_unlock(&l->rw); }
static void pb_rwlock_free(pb_rw *l) { pthread_rwlock_destroy(&l->rw); free(l); }
*/
import "C"

import (
	"fmt"
	"syscall"
	"time"
)

// LockAvailable returns nil: the C lock benchmark and the cgo pthread
// mutex run here.
func LockAvailable() error { return nil }

// LockRun runs the benchmark loop entirely in C threads. It blocks for
// cfg.Duration plus thread start and join.
func LockRun(cfg LockRunConfig) (LockRunResult, error) {
	if cfg.Threads < 1 || cfg.Locks < 1 || cfg.SampleEvery < 1 || cfg.SampleEvery&(cfg.SampleEvery-1) != 0 {
		return LockRunResult{}, fmt.Errorf("cref: bad lock run %+v", cfg)
	}
	if cfg.Pattern == PatternSkew && cfg.Threads != 2 {
		return LockRunResult{}, fmt.Errorf("cref: the skew pattern has exactly 2 threads, not %d", cfg.Threads)
	}
	var wall, cpu C.int64_t
	var cerr C.int
	r := C.pb_lk_run_once(C.int(cfg.Mode), C.int(cfg.Pattern), C.int(cfg.Threads), C.int(cfg.Locks),
		C.int(cfg.WorkIn), C.int(cfg.WorkBetween), C.int64_t(cfg.HoldSleep), C.int64_t(cfg.Duration),
		C.int(cfg.SampleEvery), C.uint64_t(cfg.Seed), &wall, &cpu, &cerr)
	if r == nil {
		return LockRunResult{}, fmt.Errorf("cref: starting %d C lock threads: %w", cfg.Threads, syscall.Errno(cerr))
	}
	defer C.pb_lk_free(r)
	res := LockRunResult{WallNs: int64(wall), CPUNs: int64(cpu), Counts: make([]int64, cfg.Threads), Locked: int64(C.pb_lk_locked(r))}
	for i := range res.Counts {
		res.Counts[i] = int64(C.pb_lk_count(r, C.int(i)))
	}
	for b := 0; b < C.PB_LK_BUCKETS; b++ {
		var n int64
		for i := 0; i < cfg.Threads; i++ {
			n += int64(C.pb_lk_hist(r, C.int(i), C.int(b)))
		}
		if n > 0 {
			res.Waits = append(res.Waits, [2]int64{int64(C.pb_lk_bucket_low(C.int(b))), n})
		}
	}
	return res, nil
}

// LockWorkNs is the C work unit's cost in ns per iteration, measured over
// iters iterations.
func LockWorkNs(iters int) float64 { return float64(C.pb_lk_work_ns(C.long(iters))) }

// LockUncontendedNs is one C thread's lock+unlock pair of mode in ns, over
// iters pairs (no cgo crossing inside).
func LockUncontendedNs(mode LockMode, iters int) float64 {
	return float64(C.pb_lk_uncontended_ns(C.int(mode), C.long(iters)))
}

// CgoCallNs is the cost of one empty cgo call in ns (the crossing the Go
// pthread implementation pays twice per acquisition), over iters calls.
func CgoCallNs(iters int) float64 {
	t0 := time.Now()
	for i := 0; i < iters; i++ {
		C.pb_nop()
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(iters)
}

// PthreadMutex is a glibc pthread_mutex_t (default type) in C memory
// between 320-byte pads; Lock and Unlock are one cgo call each.
type PthreadMutex struct{ l *C.pb_lk }

// NewPthreadMutex allocates and initialises one. Free it with Free.
func NewPthreadMutex() (*PthreadMutex, error) {
	l := C.pb_mutex_new()
	if l == nil {
		return nil, fmt.Errorf("cref: allocating a pthread mutex: %w", syscall.ENOMEM)
	}
	return &PthreadMutex{l}, nil
}

// Lock is pthread_mutex_lock.
func (m *PthreadMutex) Lock() { C.pb_mutex_lock(m.l) }

// Unlock is pthread_mutex_unlock.
func (m *PthreadMutex) Unlock() { C.pb_mutex_unlock(m.l) }

// Free destroys the mutex; it must be unlocked and unused.
func (m *PthreadMutex) Free() {
	if m.l != nil {
		C.pb_mutex_free(m.l)
		m.l = nil
	}
}

// RwRun runs rwlock.rs's loop entirely in C threads on one
// pthread_rwlock_t. It blocks for cfg.Duration plus thread start and join.
func RwRun(cfg RwRunConfig) (RwRunResult, error) {
	if cfg.Readers < 0 || cfg.Writers < 0 || cfg.Readers+cfg.Writers < 1 || cfg.SampleEvery < 1 || cfg.SampleEvery&(cfg.SampleEvery-1) != 0 {
		return RwRunResult{}, fmt.Errorf("cref: bad rwlock run %+v", cfg)
	}
	var wall, cpu C.int64_t
	var cerr C.int
	r := C.pb_rw_run_once(C.int(cfg.Readers), C.int(cfg.Writers), C.int(cfg.WorkIn), C.int(cfg.WorkBetween),
		C.int64_t(cfg.Duration), C.int(cfg.SampleEvery), &wall, &cpu, &cerr)
	if r == nil {
		return RwRunResult{}, fmt.Errorf("cref: starting %d C rwlock threads: %w", cfg.Readers+cfg.Writers, syscall.Errno(cerr))
	}
	defer C.pb_rw_free(r)
	res := RwRunResult{WallNs: int64(wall), CPUNs: int64(cpu), Written: int64(C.pb_rw_locked(r)), Overlaps: int64(C.pb_rw_overlaps(r))}
	for i := 0; i < cfg.Writers; i++ {
		res.Writers = append(res.Writers, int64(C.pb_rw_count(r, C.int(i))))
		res.WriteWaitMaxNs = max(res.WriteWaitMaxNs, int64(C.pb_rw_wait_max(r, C.int(i))))
	}
	for i := cfg.Writers; i < cfg.Writers+cfg.Readers; i++ {
		res.Readers = append(res.Readers, int64(C.pb_rw_count(r, C.int(i))))
	}
	return res, nil
}

// PthreadRwLock is a glibc pthread_rwlock_t (default attributes: readers
// preferred) in C memory between 320-byte pads; every method is one cgo
// call.
type PthreadRwLock struct{ l *C.pb_rw }

// NewPthreadRwLock allocates and initialises one. Free it with Free.
func NewPthreadRwLock() (*PthreadRwLock, error) {
	l := C.pb_rwlock_new()
	if l == nil {
		return nil, fmt.Errorf("cref: allocating a pthread rwlock: %w", syscall.ENOMEM)
	}
	return &PthreadRwLock{l}, nil
}

// RLock is pthread_rwlock_rdlock.
func (m *PthreadRwLock) RLock() { C.pb_rwlock_rdlock(m.l) }

// RUnlock is pthread_rwlock_unlock.
func (m *PthreadRwLock) RUnlock() { C.pb_rwlock_unlock(m.l) }

// Lock is pthread_rwlock_wrlock.
func (m *PthreadRwLock) Lock() { C.pb_rwlock_wrlock(m.l) }

// Unlock is pthread_rwlock_unlock.
func (m *PthreadRwLock) Unlock() { C.pb_rwlock_unlock(m.l) }

// Free destroys the rwlock; it must be unlocked and unused.
func (m *PthreadRwLock) Free() {
	if m.l != nil {
		C.pb_rwlock_free(m.l)
		m.l = nil
	}
}
