/*
 * parkbench.h: the plugin ABI, version 2 (version 1 still loads).
 *
 * A shared library adds implementations to parkbench at run time
 * (`parkbench latency --plugin ./libmine.so --impl=mine,futex,c-futex`). It
 * exports one symbol, parkbench_plugin, which returns a table: the library's
 * name and version, and its implementations, each a name, a one-line summary
 * and the operations it provides. An implementation may provide any of four
 * kinds of operations, each optional (NULL when absent):
 *
 *   parker   a thread or token parker (latency, selfwake, timeout, wake);
 *   mutex    a lock (lock, spin, and herd and wake with a condvar);
 *   condvar  a condition variable used with the same implementation's mutex
 *            (herd, wake);
 *   lot      parking-lot-style park/unpark on an address: without a parker,
 *            park and unpark_one run where a parker does, as a token parker
 *            on a word of the harness's (latency, selfwake, timeout, wake);
 *            unpark_all and requeue are checked but no experiment calls
 *            them yet.
 *
 * Threads: parkbench calls every operation from its own threads: Go
 * threads locked to their OS thread (through cgo), and, where an experiment
 * has a C floor, C threads that call the function pointers directly; never
 * plain goroutines that may change threads between two calls (a run with
 * --participants=goroutines leaves a plugin's implementations out). A
 * library must not assume it created the thread, must not spawn threads of
 * its own that call back, and must not unwind (a C++ exception or a Rust
 * panic) out of any operation.
 *
 * Every call is watched: one that has not returned after 30 s (a C-thread
 * loop that has not finished an iteration) ends the run, naming the
 * implementation and the call; a crash in the library is named on the first
 * line of stderr before Go reports it (docs/plugins.md).
 *
 * Time: every deadline is CLOCK_MONOTONIC, in nanoseconds. A parker's
 * park_until and a condvar's wait_until get a deadline of 0 or more (one
 * already past is passed as it is); the lot's park gets -1 for none.
 *
 * Version 2 adds the loops a library owns (struct pb_loops, below; the
 * templates to build them with are in parkbench_loops.h): per
 * implementation, its own lock loop, self-wake loop and ping-pong wait,
 * with its lock or parker inlined, which the c-NAME rows run on the
 * harness's C threads instead of calling the function pointers.
 *
 * Versioning: the host reads a table of version 1 (the first five fields
 * of struct pb_plugin) or 2, and refuses any other. A version-2 struct
 * carries its size (the library's sizeof), so that a later version adds
 * fields only at the end and a host reads only what it knows; a size
 * smaller than version 2's is refused. struct pb_impl is the same in both
 * versions (an array's stride does not change).
 */
#ifndef PARKBENCH_H
#define PARKBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PARKBENCH_ABI_VERSION 2
#define PARKBENCH_ABI_V1 1

/*
 * A parker. Two contracts, told apart by prepare:
 *
 * prepare == NULL: a token parker (crossbeam's Parker, Rust std's
 *   thread::park). unpark may come before park; one pending token makes the
 *   next park return at once; tokens do not accumulate. park returns only
 *   with a token (a parker that may return spuriously must loop inside):
 *   the conformance check counts the returns against the unparks and
 *   refuses a parker whose park returns without one.
 *
 * prepare != NULL: a thread parker (parking_lot_core's ThreadParkerT).
 *   The owner calls prepare, then (after checking its own condition) park;
 *   park returns after an unpark that happened after prepare, and never
 *   spuriously. unpark may come more than once after one prepare, and
 *   after the owner has stopped waiting (latency's ping-pong wakes on
 *   every trip, also when the waiter saw its flag and never parked): a
 *   later one must do no harm, and one that lands after the next prepare
 *   may make that park return (the caller looks at its flag again).
 *
 * create is called on the owner thread; park, park_until and prepare only
 * by the owner; unpark by any thread; destroy once, after every other call
 * has returned.
 */
struct pb_parker {
	void *(*create)(void);
	void (*prepare)(void *p); /* NULL for a token parker */
	void (*park)(void *p);
	/* 1 when unparked (a token consumed), 0 when the deadline passed. */
	int (*park_until)(void *p, int64_t deadline_ns);
	void (*unpark)(void *p);
	void (*destroy)(void *p);
};

/*
 * A mutex. trylock may be NULL; it returns 1 when the lock was taken.
 * unlock is called by the thread that locked.
 */
struct pb_mutex {
	void *(*create)(void);
	void (*lock)(void *m);
	int (*trylock)(void *m);
	void (*unlock)(void *m);
	void (*destroy)(void *m);
};

/*
 * A condition variable, used with a mutex of the same implementation: wait
 * is called with m locked, releases it while waiting and holds it again on
 * return. It may return spuriously; the caller loops on its condition.
 * wait_until may be NULL; it returns 1 when notified (or spuriously woken)
 * and 0 when the deadline passed. notify_one and notify_all return how many
 * threads they woke or moved onto the mutex, or -1 when the implementation
 * cannot tell.
 */
struct pb_condvar {
	void *(*create)(void);
	void (*wait)(void *c, void *m);
	int (*wait_until)(void *c, void *m, int64_t deadline_ns);
	int (*notify_one)(void *c);
	int (*notify_all)(void *c);
	void (*destroy)(void *c);
};

/* What park returns (parking_lot_core's ParkResult). */
#define PB_PARK_UNPARKED 1
#define PB_PARK_INVALID 0
#define PB_PARK_TIMED_OUT (-1)

/*
 * Parking-lot-style operations on an address (parking_lot_core's park,
 * unpark_one, unpark_all, unpark_requeue). The key is addr; park's validate
 * is "*addr == expected", read under the key's queue lock, so an unpark
 * that follows a store to *addr is never missed. deadline_ns < 0 means no
 * deadline. unpark_one and unpark_all return how many threads they woke;
 * requeue wakes one thread parked on from (if any) and moves the others
 * onto to, and returns the number woken plus the number moved. requeue may
 * be NULL.
 */
struct pb_lot {
	int (*park)(const uint32_t *addr, uint32_t expected, int64_t deadline_ns);
	int (*unpark_one)(const uint32_t *addr);
	int (*unpark_all)(const uint32_t *addr);
	int (*requeue)(const uint32_t *from, const uint32_t *to);
};

/*
 * One implementation. name is what --impl takes: lower case, digits, '-',
 * '_' and '.', at most 32 bytes, unique in the run and not a built-in's
 * name. summary is one line, at most 80 bytes. sleeps is 1 when a wait
 * blocks in the kernel, 0 when it spins.
 */
struct pb_impl {
	const char *name;
	const char *summary;
	int sleeps;
	const struct pb_parker *parker;
	const struct pb_mutex *mutex;
	const struct pb_condvar *condvar;
	const struct pb_lot *lot;
};

/*
 * Version 2: the loops a library owns (the lockhammer way: the lock under
 * test inlined into the measured loop, so that the loop calls nothing; the
 * way criterion's iter_custom and Go's testing.B hand the loop to the code
 * under test). The harness still owns the threads, the start and the stop,
 * the clocks (but for the lock loop's sampled waits, which the loop reads
 * with pb_now_ns), the sampling rate and the checks. Each loop is optional
 * (NULL); parkbench_loops.h has a template for each.
 *
 * The harness calls a loop on its own C thread, which the watchdog watches
 * (docs/plugins.md): the loop stores its running count into *count (a
 * relaxed store, every iteration): that is both the per-thread count the
 * harness reads and the watchdog's sign that the loop moves.
 */

/* What the harness gives lock's loop, one per thread. */
struct pb_lock_loop {
	size_t size;            /* sizeof(struct pb_lock_loop), the harness's */
	void *mutex;            /* made by the implementation's mutex create */
	const uint32_t *stop;   /* nonzero: return (read it relaxed, once an iteration) */
	uint64_t *count;        /* the acquisitions so far, stored every iteration */
	int64_t *guarded;       /* +1 under the lock on each checked acquisition */
	double *shared;         /* the value the lock protects (the work inside) */
	int64_t *hist;          /* PB_HIST_BUCKETS: the sampled waits (pb_hist_bucket) */
	double *value;          /* out: the work's value, which keeps it live */
	uint64_t sample_mask;   /* acquisition n is sampled when (n & mask) == 0 */
	int work_in;            /* work units inside the lock */
	int work_between;       /* work units after the unlock */
	int check_all;          /* 1: every acquisition is checked; 0: the sampled ones */
};

struct pb_loops {
	size_t size; /* sizeof(struct pb_loops), the library's */
	/*
	 * lock's loop (parking_lot's benchmark/src/bin/mutex.rs): until *stop,
	 * { n sampled: t0 = now; lock; n sampled: wait = now - t0;
	 *   checked: ++*guarded; work_in units on *shared; unlock;
	 *   record the wait; work_between units; n++; *count = n }.
	 * A work unit is { *shared += value; *shared *= 1.01; value = *shared }
	 * inside, { local += value; local *= 1.01; value = local } between.
	 * Returns n, which must equal *count and the sampled waits'
	 * ceil(n / (mask + 1)). Needs the implementation's mutex.
	 */
	uint64_t (*lock)(const struct pb_lock_loop *a);
	/*
	 * selfwake's loop: pairs times { unpark, then park, which returns at
	 * once }, *count bumped each pair; returns the pairs done. parker is
	 * the implementation's parker (its create's; a thread parker prepares
	 * before the unpark); without a parker, parker is NULL and the pair is
	 * the lot's unpark_one(word) then park(word, 0, -1), *word being 1
	 * (invalid: it returns at once).
	 */
	uint64_t (*selfwake)(void *parker, const uint32_t *word, uint64_t pairs, uint64_t *count);
	/*
	 * The ping-pong's wait (latency's C rows): return once *flag is not 0,
	 * parking on parker (or, without a parker, on the lot with flag as the
	 * key, expected 0) while it is 0. The waker stores the flag (release)
	 * and calls the implementation's unpark (unpark_one on flag).
	 */
	void (*pingpong_wait)(void *parker, const uint32_t *flag);
};

/*
 * The table the library returns. version is free text recorded in every
 * result that uses the library (for example the crate versions and the
 * compiler: "parking_lot_core 0.9.3; rustc 1.95.0").
 */
struct pb_plugin {
	uint32_t abi; /* PARKBENCH_ABI_VERSION (or PARKBENCH_ABI_V1) */
	const char *name;
	const char *version;
	size_t n_impls;
	const struct pb_impl *impls;
	/* Version 2. */
	size_t size; /* sizeof(struct pb_plugin) */
	/* n_impls entries, parallel to impls: each implementation's loops or
	 * NULL; or NULL for none at all. */
	const struct pb_loops *const *loops;
};

/* The sampled waits' histogram (struct pb_lock_loop's hist): below 256 ns
 * exactly, above that 128 sub-buckets per power of two up to 2^40 ns. */
#define PB_HIST_BUCKETS (256 + 33 * 128)

static inline int pb_hist_bucket(uint64_t v) {
	if (v < 256)
		return (int)v;
	int e = 63 - __builtin_clzll(v);
	if (e > 40)
		return PB_HIST_BUCKETS - 1;
	return 256 + (e - 8) * 128 + (int)((v >> (e - 7)) - 128);
}

/* The one exported symbol. The table and its strings live as long as the
 * library is loaded. */
const struct pb_plugin *parkbench_plugin(void);

#define PARKBENCH_PLUGIN_SYMBOL "parkbench_plugin"

#ifdef __cplusplus
}
#endif

#endif /* PARKBENCH_H */
