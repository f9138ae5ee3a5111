// hang-lock: a mutex whose lock never returns once another thread holds
// it (uncontended, it works). See README.md.
#include <stdatomic.h>
#include <stdlib.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include "parkbench.h"

// hang marks the hang (creates $PBTEST_HANG_MARK, when set, so that a test
// knows the call is now stuck) and never returns.
static void hang(void) {
	const char *mark = getenv("PBTEST_HANG_MARK");
	if (mark != NULL)
		close(open(mark, O_CREAT | O_WRONLY, 0644));
	for (;;) {
		struct timespec ts = {1, 0};
		nanosleep(&ts, NULL);
	}
}

static void *mk(void) { return calloc(1, sizeof(atomic_int)); }
static void lk(void *m) {
	if (atomic_exchange((atomic_int *)m, 1) == 0)
		return;
	hang();
}
static void ul(void *m) { atomic_store((atomic_int *)m, 0); }
static const struct pb_mutex mx = {mk, lk, NULL, ul, free};
static const struct pb_impl impls[] = {{"hang-lock", "never returns from a contended lock", 1, NULL, &mx, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_VERSION, "hang-lock", "test 1", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
