// crash-lock: a mutex whose lock dereferences NULL once another thread
// holds it (SIGSEGV in the library's code). See README.md.
#include <stdatomic.h>
#include <stdlib.h>
#include "parkbench.h"

static int *volatile nowhere; // NULL, and the compiler cannot know it
static void *mk(void) { return calloc(1, sizeof(atomic_int)); }
static void lk(void *m) {
	if (atomic_exchange((atomic_int *)m, 1) == 0)
		return;
	*nowhere = 1; // SIGSEGV
}
static void ul(void *m) { atomic_store((atomic_int *)m, 0); }
static const struct pb_mutex mx = {mk, lk, NULL, ul, free};
static const struct pb_impl impls[] = {{"crash-lock", "dereferences NULL in a contended lock", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "crash-lock", "test 1", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
