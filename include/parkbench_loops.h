/*
 * parkbench_loops.h: templates of the loops a library owns (ABI version 2,
 * struct pb_loops in parkbench.h), for a C library to build with its own
 * lock or parker inlined: the loop then calls nothing (lockhammer's way,
 * ARM-software/synchronization-benchmarks benchmarks/lockhammer, where the
 * lock under test is #included into the measured loop).
 *
 * Each template is an always_inline function that takes the library's
 * operations as function pointers; called with the address of a function
 * the compiler can see (a static one in the same file), the pointer is a
 * constant after inlining and the call is inlined too. A library writes one
 * small function per loop:
 *
 *	static uint64_t my_lock_loop(const struct pb_lock_loop *a) {
 *		return pb_lock_loop_run(a, my_lock, my_unlock);
 *	}
 *	static uint64_t my_selfwake(void *p, const uint32_t *w, uint64_t n, uint64_t *count) {
 *		return pb_selfwake_token_run(p, n, count, my_unpark, my_park);
 *	}
 *	static void my_wait(void *p, const uint32_t *flag) { pb_pingpong_wait_token_run(p, flag, my_park); }
 *	static const struct pb_loops my_loops = {sizeof my_loops, my_lock_loop, my_selfwake, my_wait};
 *
 * examples/cplugin/mine.c is the worked example; docs/plugins.md, "Measuring
 * at native speed", says what the harness checks and what each row costs.
 */
#ifndef PARKBENCH_LOOPS_H
#define PARKBENCH_LOOPS_H

#include <stdint.h>
#include <time.h>

#include "parkbench.h"

#define PB_LOOP_INLINE static inline __attribute__((always_inline))

/* pb_now_ns is CLOCK_MONOTONIC in ns: the harness's clock. */
PB_LOOP_INLINE int64_t pb_now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * lock's loop (struct pb_loops's lock): the harness's C loop
 * (internal/cref/lock.c, pb_lk_thread) for one lock, with lock and unlock
 * the library's. The count lives in a register; the one store per
 * iteration is *count, the watchdog's progress word.
 */
PB_LOOP_INLINE uint64_t pb_lock_loop_run(const struct pb_lock_loop *a, void (*lock)(void *), void (*unlock)(void *)) {
	void *m = a->mutex;
	const uint32_t *stop = a->stop;
	uint64_t *count = a->count;
	int64_t *guarded = a->guarded, *hist = a->hist;
	double *shared = a->shared;
	const uint64_t mask = a->sample_mask;
	const int win = a->work_in, wbetween = a->work_between, check_all = a->check_all;
	double value = 0, local = 0;
	uint64_t n = 0;
	while (!__atomic_load_n(stop, __ATOMIC_RELAXED)) {
		const int sample = (n & mask) == 0;
		int64_t t0 = 0, t1 = 0;
		if (sample)
			t0 = pb_now_ns();
		lock(m);
		if (sample)
			t1 = pb_now_ns();
		if (check_all || sample)
			(*guarded)++;
		for (int k = 0; k < win; k++) {
			*shared += value;
			*shared *= 1.01;
			value = *shared;
		}
		unlock(m);
		/* After the unlock: the histogram is not written under the lock. */
		if (sample)
			hist[pb_hist_bucket((uint64_t)(t1 - t0))]++;
		for (int k = 0; k < wbetween; k++) {
			local += value;
			local *= 1.01;
			value = local;
		}
		n++;
		__atomic_store_n(count, n, __ATOMIC_RELAXED);
	}
	*a->value = value;
	return n;
}

/* selfwake's loop for a token parker: unpark leaves the token, park takes it. */
PB_LOOP_INLINE uint64_t pb_selfwake_token_run(void *p, uint64_t pairs, uint64_t *count, void (*unpark)(void *),
					      void (*park)(void *)) {
	uint64_t c = *count;
	for (uint64_t i = 0; i < pairs; i++) {
		unpark(p);
		park(p);
		__atomic_store_n(count, ++c, __ATOMIC_RELAXED);
	}
	return pairs;
}

/* selfwake's loop for a thread parker: prepare, unpark, park. */
PB_LOOP_INLINE uint64_t pb_selfwake_thread_run(void *p, uint64_t pairs, uint64_t *count, void (*prepare)(void *),
					       void (*unpark)(void *), void (*park)(void *)) {
	uint64_t c = *count;
	for (uint64_t i = 0; i < pairs; i++) {
		prepare(p);
		unpark(p);
		park(p);
		__atomic_store_n(count, ++c, __ATOMIC_RELAXED);
	}
	return pairs;
}

/* selfwake's loop for the lot: unpark_one on a key nobody waits on, then a
 * park whose expected value the word does not hold (invalid at once). */
PB_LOOP_INLINE uint64_t pb_selfwake_lot_run(const uint32_t *word, uint64_t pairs, uint64_t *count,
					    int (*unpark_one)(const uint32_t *),
					    int (*park)(const uint32_t *, uint32_t, int64_t)) {
	uint64_t c = *count;
	for (uint64_t i = 0; i < pairs; i++) {
		unpark_one(word);
		park(word, 0, -1);
		__atomic_store_n(count, ++c, __ATOMIC_RELAXED);
	}
	return pairs;
}

/* The ping-pong's wait on a token parker: park until the flag is set (a
 * token left by an earlier wake costs one more turn, no more). */
PB_LOOP_INLINE void pb_pingpong_wait_token_run(void *p, const uint32_t *flag, void (*park)(void *)) {
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		park(p);
}

/* ... on a thread parker: arm, look again, park (the unpark that follows
 * the flag's store comes after the arming, so park returns). */
PB_LOOP_INLINE void pb_pingpong_wait_thread_run(void *p, const uint32_t *flag, void (*prepare)(void *),
						void (*park)(void *)) {
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		prepare(p);
		if (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
			park(p);
	}
}

/* ... on the lot: park on the flag while it is 0 (read under the key's
 * queue lock, so the waker's store-then-unpark_one is never missed). */
PB_LOOP_INLINE void pb_pingpong_wait_lot_run(const uint32_t *flag, int (*park)(const uint32_t *, uint32_t, int64_t)) {
	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE))
		park(flag, 0, -1);
}

#endif /* PARKBENCH_LOOPS_H */
