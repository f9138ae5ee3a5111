// hang-park: a correct token parker (a mutex, a condvar, a token) for the
// first $PBTEST_HANG_AFTER parks of the process (default 20000: past the
// conformance check's few thousand), then a park that never returns.
// See README.md.
#include <pthread.h>
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

typedef struct { pthread_mutex_t m; pthread_cond_t c; int token; } tp;
static atomic_long parks;
static long hang_after = -1;

static void *tp_new(void) {
	if (hang_after < 0) {
		const char *e = getenv("PBTEST_HANG_AFTER");
		hang_after = e != NULL ? atol(e) : 20000;
	}
	tp *p = calloc(1, sizeof *p);
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->m, NULL);
	pthread_cond_init(&p->c, &a);
	return p;
}
static void tp_park(void *v) {
	if (atomic_fetch_add(&parks, 1) >= hang_after)
		hang();
	tp *p = v;
	pthread_mutex_lock(&p->m);
	while (!p->token) pthread_cond_wait(&p->c, &p->m);
	p->token = 0;
	pthread_mutex_unlock(&p->m);
}
static int tp_park_until(void *v, int64_t d) {
	tp *p = v;
	struct timespec ts = {d / 1000000000, d % 1000000000};
	pthread_mutex_lock(&p->m);
	while (!p->token && pthread_cond_timedwait(&p->c, &p->m, &ts) == 0) {}
	int r = p->token;
	p->token = 0;
	pthread_mutex_unlock(&p->m);
	return r;
}
static void tp_unpark(void *v) {
	tp *p = v;
	pthread_mutex_lock(&p->m);
	p->token = 1;
	pthread_cond_signal(&p->c);
	pthread_mutex_unlock(&p->m);
}
static const struct pb_parker pk = {tp_new, NULL, tp_park, tp_park_until, tp_unpark, free};
static const struct pb_impl impls[] = {{"hang-park", "a token parker whose park hangs after a while", 1, &pk, NULL, NULL, NULL}};
static const struct pb_plugin table = {PARKBENCH_ABI_VERSION, "hang-park", "test 1", 1, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
