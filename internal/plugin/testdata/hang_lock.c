// hang-lock: a mutex whose lock never returns once another thread holds
// it (uncontended, it works). See README.md.
#include <stdatomic.h>
#include "misbehave.h"

static void *mk(void) { return calloc(1, sizeof(atomic_int)); }
static void lk(void *m) {
	if (atomic_exchange((atomic_int *)m, 1) == 0)
		return;
	hang();
}
static void ul(void *m) { atomic_store((atomic_int *)m, 0); }
static const struct pb_mutex mx = {mk, lk, NULL, ul, free};
static const struct pb_impl impls[] = {{"hang-lock", "never returns from a contended lock", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "hang-lock", "test 1", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
