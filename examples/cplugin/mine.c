// A parkbench plugin (include/parkbench.h, version 2): a futex token parker
// and a TTAS spin lock, a dozen lines each, and their own loops built from
// include/parkbench_loops.h's templates with the lock and the parker
// inlined. Build and measure (docs/plugins.md, "Measuring at native speed"):
//
//	gcc -O2 -shared -fPIC -I../../include -o libmine.so mine.c
//	parkbench latency --plugin ./libmine.so --impl=mine-futex,c-mine-futex,c-mine-futex.fp,futex,c-futex
//	parkbench lock --plugin ./libmine.so --impl=mine-spin,c-mine-spin,c-mine-spin.fp,spin,c-spin
//
// mine-* is called from Go threads (one cgo call per operation), c-mine-*
// runs the loops below on C threads, c-mine-*.fp the harness's C loop
// calling the functions through pointers.
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "parkbench.h"
#include "parkbench_loops.h"

// The parker: a word, 1 when a token is left. park takes the token or
// sleeps while the word is 0; unpark leaves the token, then wakes. The
// kernel compares the word with 0 before it sleeps, so a token left
// between the exchange and the wait is never missed.
static void *fx_create(void) { return calloc(1, sizeof(_Atomic uint32_t)); }
static int fx_park_until(void *p, int64_t deadline) {
	_Atomic uint32_t *w = p;
	while (!atomic_exchange(w, 0)) {
		struct timespec ts = {deadline / 1000000000, deadline % 1000000000};
		if (syscall(SYS_futex, w, FUTEX_WAIT_BITSET_PRIVATE, 0, deadline < 0 ? NULL : &ts, NULL,
			    FUTEX_BITSET_MATCH_ANY) != 0 && errno == ETIMEDOUT)
			return atomic_exchange(w, 0);
	}
	return 1;
}
static void fx_park(void *p) { fx_park_until(p, -1); }
static void fx_unpark(void *p) {
	if (atomic_exchange((_Atomic uint32_t *)p, 1) == 0)
		syscall(SYS_futex, p, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
static const struct pb_parker futex_parker = {fx_create, NULL, fx_park, fx_park_until, fx_unpark, free};

// The lock: test-and-test-and-set, PAUSE while it is taken.
static void *sp_create(void) { return calloc(1, sizeof(_Atomic int)); }
static int sp_trylock(void *m) { return !atomic_exchange_explicit((_Atomic int *)m, 1, memory_order_acquire); }
static void sp_lock(void *m) {
	while (!sp_trylock(m))
		while (atomic_load_explicit((_Atomic int *)m, memory_order_relaxed))
			__builtin_ia32_pause();
}
static void sp_unlock(void *m) { atomic_store_explicit((_Atomic int *)m, 0, memory_order_release); }
static const struct pb_mutex spin_lock = {sp_create, sp_lock, sp_trylock, sp_unlock, free};

// The loops (version 2): each template inlines the static functions it is
// given, so the measured loop calls nothing of the library's.
static uint64_t sp_loop(const struct pb_lock_loop *a) { return pb_lock_loop_run(a, sp_lock, sp_unlock); }
static uint64_t fx_selfwake(void *p, const uint32_t *word, uint64_t pairs, uint64_t *count) {
	(void)word;
	return pb_selfwake_token_run(p, pairs, count, fx_unpark, fx_park);
}
static void fx_wait(void *p, const uint32_t *flag) { pb_pingpong_wait_token_run(p, flag, fx_park); }
static const struct pb_loops futex_loops = {sizeof futex_loops, NULL, fx_selfwake, fx_wait};
static const struct pb_loops spin_loops = {sizeof spin_loops, sp_loop, NULL, NULL};

static const struct pb_impl impls[] = {
	{"mine-futex", "example: a futex token parker (examples/cplugin/mine.c)", 1, &futex_parker, NULL, NULL, NULL},
	{"mine-spin", "example: a TTAS spin lock with PAUSE (examples/cplugin/mine.c)", 0, NULL, &spin_lock, NULL, NULL},
};
static const struct pb_loops *const loops[] = {&futex_loops, &spin_loops};
static const struct pb_plugin table = {PARKBENCH_ABI_VERSION, "mine", "example 2.0", 2, impls, sizeof table, loops};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
