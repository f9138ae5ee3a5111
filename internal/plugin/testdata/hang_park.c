// hang-park: a correct token parker for the first $PBTEST_HANG_AFTER parks
// of the process (default 20000: past the conformance check's few
// thousand), then a park that never returns. See README.md.
#include <stdatomic.h>
#include "misbehave.h"

static atomic_long parks;
static atomic_long hang_after = -1;

static void park(void *v) {
	if (atomic_load(&hang_after) < 0) {
		const char *e = getenv("PBTEST_HANG_AFTER");
		atomic_store(&hang_after, e != NULL ? atol(e) : 20000);
	}
	if (atomic_fetch_add(&parks, 1) >= atomic_load(&hang_after))
		hang();
	tp_park(v);
}
static const struct pb_parker pk = {tp_new, NULL, park, tp_park_until, tp_unpark, tp_free};
static const struct pb_impl impls[] = {{"hang-park", "a token parker whose park hangs after a while", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "hang-park", "test 1", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
