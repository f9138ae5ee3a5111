// What the misbehaving plugins of this folder share (README.md): a correct
// token parker on a mutex, a condvar and a token (tp_*), and hang(), which
// marks the hang ($PBTEST_HANG_MARK, when set, so that a test knows the
// call is now stuck) and never returns. The tests' own libraries
// (plugin_test.go) include it too.
#ifndef PB_MISBEHAVE_H
#define PB_MISBEHAVE_H

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "parkbench.h"

static inline void hang(void) {
	const char *mark = getenv("PBTEST_HANG_MARK");
	if (mark != NULL)
		close(open(mark, O_CREAT | O_WRONLY, 0644));
	for (;;) {
		struct timespec ts = {1, 0};
		nanosleep(&ts, NULL);
	}
}

typedef struct { pthread_mutex_t m; pthread_cond_t c; int token; } tp;

static inline void *tp_new(void) {
	tp *p = calloc(1, sizeof *p);
	pthread_condattr_t a;
	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->m, NULL);
	pthread_cond_init(&p->c, &a);
	return p;
}
static inline void tp_park(void *v) {
	tp *p = v;
	pthread_mutex_lock(&p->m);
	while (!p->token) pthread_cond_wait(&p->c, &p->m);
	p->token = 0;
	pthread_mutex_unlock(&p->m);
}
static inline int tp_park_until(void *v, int64_t d) {
	tp *p = v;
	struct timespec ts = {d / 1000000000, d % 1000000000};
	pthread_mutex_lock(&p->m);
	while (!p->token && pthread_cond_timedwait(&p->c, &p->m, &ts) == 0) {}
	int r = p->token;
	p->token = 0;
	pthread_mutex_unlock(&p->m);
	return r;
}
static inline void tp_unpark(void *v) {
	tp *p = v;
	pthread_mutex_lock(&p->m);
	p->token = 1;
	pthread_cond_signal(&p->c);
	pthread_mutex_unlock(&p->m);
}
static inline void tp_free(void *v) { free(v); }

#endif
