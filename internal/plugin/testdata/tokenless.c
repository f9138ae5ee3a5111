// tokenless: a token parker whose park returns without a token on every
// 7th call (the header forbids it: park returns only with a token), beside
// a correct mutex, tokenless-mutex. See README.md.
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include "parkbench.h"

typedef struct { pthread_mutex_t m; pthread_cond_t c; int token; } tp;
static atomic_long calls;

static void *tp_new(void) {
	tp *p = calloc(1, sizeof *p);
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->m, NULL);
	pthread_cond_init(&p->c, &a);
	return p;
}
static void tp_park(void *v) {
	if (atomic_fetch_add(&calls, 1) % 7 == 6)
		return; // no token
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
static void *mx_new(void) { pthread_mutex_t *m = malloc(sizeof *m); pthread_mutex_init(m, NULL); return m; }
static void mx_lock(void *m) { pthread_mutex_lock(m); }
static void mx_unlock(void *m) { pthread_mutex_unlock(m); }
static const struct pb_parker pk = {tp_new, NULL, tp_park, tp_park_until, tp_unpark, free};
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {
	{"tokenless", "park returns without a token every 7th call", 1, &pk, NULL, NULL, NULL},
	{"tokenless-mutex", "a correct pthread mutex", 1, NULL, &mx, NULL, NULL},
};
static const struct pb_plugin table = {PARKBENCH_ABI_VERSION, "tokenless", "test 1", 2, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
