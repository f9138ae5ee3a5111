// The least a lock and a parker can be, for measuring what a call through
// the plugin boundary costs (plugin_bench_test.go): min-lock, a spin lock
// (one exchange to lock, one store to unlock; uncontended in the
// benchmarks), and min-token, a token parker on one word (unpark stores 1,
// park exchanges it back to 0, spinning while it was 0). See README.md.
#include <stdatomic.h>
#include <stdlib.h>
#include "parkbench.h"

static void *mk(void) { return calloc(1, 64); }
static void lk(void *m) {
	while (atomic_exchange_explicit((atomic_int *)m, 1, memory_order_acquire) != 0)
		;
}
static void ul(void *m) { atomic_store_explicit((atomic_int *)m, 0, memory_order_release); }
static void park(void *p) {
	while (atomic_exchange_explicit((atomic_int *)p, 0, memory_order_acquire) == 0)
		;
}
static int park_until(void *p, int64_t d) {
	(void)d;
	return atomic_exchange_explicit((atomic_int *)p, 0, memory_order_acquire);
}
static void unpark(void *p) { atomic_store_explicit((atomic_int *)p, 1, memory_order_release); }
static const struct pb_mutex mx = {mk, lk, NULL, ul, free};
static const struct pb_parker pk = {mk, NULL, park, park_until, unpark, free};
static const struct pb_impl impls[] = {
	{"min-lock", "a spin lock: one exchange, one store", 0, NULL, &mx, NULL, NULL},
	{"min-token", "a token parker on one word (spins)", 0, &pk, NULL, NULL, NULL},
};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "minimal", "test 1", 2, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
