// The C side of parkbench lock: a pthread_mutex_t and a pthread_rwlock_t
// the Go pthread implementations lock through one cgo call per operation,
// and the whole loops of parking_lot's benchmark/src/bin/mutex.rs and
// rwlock.rs (run_benchmark) in C threads: the c-pthread and c-spin floors.
// lock.c has the loops; lock_cgo.go is the Go side. The one-line lock
// operations are static inline here, so that a cgo call to one is that
// call and nothing more.
#ifndef PB_LOCK_H
#define PB_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "parkbench.h"
#include "cref_watch.h"

// PB_LK_PLUGIN locks a plugin's pb_mutex (include/parkbench.h) through its
// function pointers, one per lock, made by its create.
// PB_LK_OWN runs the plugin's own lock loop (ABI version 2, struct
// pb_loops's lock) on each thread, on one lock its create made.
enum { PB_LK_PTHREAD = 0, PB_LK_SPIN = 1, PB_LK_PLUGIN = 2, PB_LK_PTHREAD_PI = 3, PB_LK_OWN = 4 };

enum { PB_LK_LOOP = 0, PB_LK_HOLDSLEEP = 1, PB_LK_SKEW = 2 };

// Wait histogram: values below 256 ns exactly, above that 128 sub-buckets
// per power of two up to 2^40 ns.
#define PB_LK_BUCKETS (256 + 33 * 128)

static inline int64_t pb_lk_bucket_low(int i) {
	if (i < 256) return i;
	int e = 8 + (i - 256) / 128;
	int64_t m = 128 + (i - 256) % 128;
	return m << (e - 7);
}

// One lock between pads, as mutex.rs's ([0u8; 300], M::new(0.0), [0u8; 300]):
// the protected f64 sits with the lock word.
typedef struct {
	char pad0[320];
	pthread_mutex_t mu;
	_Atomic uint32_t spin;
	void *pm;       // the plugin's mutex (PB_LK_PLUGIN)
	int64_t n;      // acquisitions counted under the lock: the mutual-exclusion check
	double value;
	char pad1[320];
} pb_lk;

typedef struct {
	int64_t count;
	int64_t checked; // of count, the acquisitions that incremented their lock's n
	int64_t counted; // PB_LK_OWN: the loop's count word when it returned (count is what it returned)
	double value;   // keeps the work live
	int64_t hist[PB_LK_BUCKETS];
	char pad[64];
} pb_lk_slot;

typedef struct {
	int mode, pattern, nthreads, nlocks, win, wbetween, sample_mask;
	const struct pb_mutex *ops; // PB_LK_PLUGIN
	const pbwd_foreign *f;       // PB_LK_PLUGIN: whose ops, for the watchdog
	int64_t hold_sleep_ns;
	uint64_t seed;
	pb_lk *locks;
	pb_lk_slot *slots;
	// PB_LK_OWN: each thread's watch slot, for pbwd_told_stop (set before
	// the gate opens).
	pbwd_slot **wslots;
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

void pb_lk_free(pb_lk_run *r);

// pb_lk_run_once starts the threads, releases them together through the
// gate once all have arrived, sleeps duration_ns, sets
// stop (relaxed, as mutex.rs's keep_going) and joins. On success it
// returns the run (free with pb_lk_free) and wall/cpu; NULL and *err on
// failure. f is the plugin's implementation for PB_LK_PLUGIN (NULL
// otherwise): each thread's loop is watched (cref_watch.h).
pb_lk_run *pb_lk_run_once(int mode, const pbwd_foreign *f, int pattern, int nthreads, int nlocks, int win, int wbetween,
		int64_t hold_sleep_ns, int64_t duration_ns, int sample_every, uint64_t seed,
		int64_t *wall, int64_t *cpu, int *err);

int64_t pb_lk_count(pb_lk_run *r, int i);
int64_t pb_lk_counted(pb_lk_run *r, int i);

int64_t pb_lk_locked(pb_lk_run *r);
// pb_lk_checked: the threads' checked acquisitions, summed (pb_lk_locked
// equals it unless mutual exclusion failed).
int64_t pb_lk_checked(pb_lk_run *r);

int64_t pb_lk_hist(pb_lk_run *r, int i, int b);

// pb_lk_work_ns is the C work unit's cost: ns per iteration of mutex.rs's
// dependent float loop, over iters iterations, compiled as in the thread
// loop (the shared value may live in a register for the loop's length).
double pb_lk_work_ns(long iters);

// pb_lk_uncontended_ns is one thread's lock+unlock pair of mode, in ns
// (f as for pb_lk_run_once).
double pb_lk_uncontended_ns(int mode, const pbwd_foreign *f, long iters);

// The Go pthread implementation's mutex: padded like the benchmark's.
pb_lk *pb_mutex_new(void);

// pb_mutex_lock and pb_mutex_unlock are one cgo call each from Go.
static inline void pb_mutex_lock(pb_lk *l) { pthread_mutex_lock(&l->mu); }
static inline void pb_mutex_unlock(pb_lk *l) { pthread_mutex_unlock(&l->mu); }

// pb_mutex_new_pi is one with PTHREAD_PRIO_INHERIT (NULL and *err on failure).
pb_lk *pb_mutex_new_pi(int *err);

void pb_mutex_free(pb_lk *l);

// pb_nop is the empty call CgoCallNs times: the cost of one crossing.
static inline void pb_nop(void) {}

// --- parkbench rwlock: pthread_rwlock_t, from Go through cgo and
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

void pb_rw_free(pb_rw_run *r);

// pb_rw_run_once is pb_lk_run_once for the rwlock loop: nwriters writer
// threads (slots 0..nwriters-1) and nreaders readers on one rwlock.
pb_rw_run *pb_rw_run_once(int nreaders, int nwriters, int win, int wbetween,
		int64_t duration_ns, int sample_every, int64_t *wall, int64_t *cpu, int *err);

int64_t pb_rw_count(pb_rw_run *r, int i);

int64_t pb_rw_wait_max(pb_rw_run *r, int i);

int64_t pb_rw_locked(pb_rw_run *r);

int64_t pb_rw_overlaps(pb_rw_run *r);

// The Go pthread rwlock implementation's lock, padded like the benchmark's.
pb_rw *pb_rwlock_new(void);

// One cgo call each from Go.
static inline void pb_rwlock_rdlock(pb_rw *l) { pthread_rwlock_rdlock(&l->rw); }
static inline void pb_rwlock_wrlock(pb_rw *l) { pthread_rwlock_wrlock(&l->rw); }
static inline void pb_rwlock_unlock(pb_rw *l) { pthread_rwlock_unlock(&l->rw); }

void pb_rwlock_free(pb_rw *l);

#endif
