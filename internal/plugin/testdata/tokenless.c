// tokenless: a token parker whose park returns without a token on every
// 7th call (the header forbids it: park returns only with a token), beside
// a correct mutex, tokenless-mutex. See README.md.
#include <stdatomic.h>
#include "misbehave.h"

static atomic_long calls;

static void park(void *v) {
	if (atomic_fetch_add(&calls, 1) % 7 == 6)
		return; // no token
	tp_park(v);
}
static void *mx_new(void) { pthread_mutex_t *m = malloc(sizeof *m); pthread_mutex_init(m, NULL); return m; }
static void mx_lock(void *m) { pthread_mutex_lock(m); }
static void mx_unlock(void *m) { pthread_mutex_unlock(m); }
static const struct pb_parker pk = {tp_new, NULL, park, tp_park_until, tp_unpark, tp_free};
static const struct pb_mutex mx = {mx_new, mx_lock, NULL, mx_unlock, free};
static const struct pb_impl impls[] = {
	{"tokenless", "park returns without a token every 7th call", 1, &pk, NULL, NULL, NULL},
	{"tokenless-mutex", "a correct pthread mutex", 1, NULL, &mx, NULL, NULL},
};
static const struct pb_plugin table = {PARKBENCH_ABI_V1, "tokenless", "test 1", 2, impls};
const struct pb_plugin *parkbench_plugin(void) { return &table; }
