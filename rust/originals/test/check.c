/*
 * check.c: loads a parkbench plugin with dlopen and exercises every
 * operation it exports from C threads (no Go), against the contract in
 * include/parkbench.h. scripts/rust-originals.sh --check builds and runs it
 * on the Rust originals; it works on any plugin.
 *
 *   cc -O2 -pthread -Iinclude rust/originals/test/check.c -o check -ldl
 *   ./check LIB.so
 *
 * Exits 0 when every check passed, 1 (naming the check) when one failed. A
 * lost wakeup shows as a hang, so every blocking check has a watchdog
 * (alarm) that fails the run instead.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "parkbench.h"

static const char *current = "load";
static int failures;

static void fail(const char *what) {
	fprintf(stderr, "check: %s: %s\n", current, what);
	failures++;
}

static void on_alarm(int sig) {
	(void)sig;
	static const char msg[] = "check: timed out (a lost wakeup?) in ";
	write(2, msg, sizeof msg - 1);
	write(2, current, strlen(current));
	write(2, "\n", 1);
	_exit(1);
}

static int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- parkers ---- */

#define ROUNDS 20000

struct pp {
	const struct pb_parker *ops;
	void *p[2];
	atomic_int flag[2];
	atomic_int ready;
};

/* One side of a ping-pong on two parkers: wait for my flag, then set the
 * peer's and unpark it. A lost wakeup hangs (the alarm fails it). */
static void *pp_side(void *arg) {
	struct pp *s = arg;
	int me = atomic_fetch_add(&s->ready, 1) == 0 ? 0 : 1;
	s->p[me] = s->ops->create();
	atomic_fetch_add(&s->ready, 1);
	while (atomic_load(&s->ready) < 4)
		;
	for (int i = 0; i < ROUNDS; i++) {
		if (me == 1 || i > 0) {
			while (!atomic_load(&s->flag[me])) {
				if (s->ops->prepare)
					s->ops->prepare(s->p[me]);
				if (atomic_load(&s->flag[me]))
					break;
				s->ops->park(s->p[me]);
			}
			atomic_store(&s->flag[me], 0);
		}
		atomic_store(&s->flag[1 - me], 1);
		s->ops->unpark(s->p[1 - me]);
	}
	return NULL;
}

static void check_parker(const struct pb_impl *im) {
	const struct pb_parker *ops = im->parker;
	if (!ops->create || !ops->park || !ops->unpark || !ops->destroy) {
		fail("a required parker function is NULL");
		return;
	}
	void *p = ops->create();
	if (ops->prepare == NULL) {
		/* token: unpark first, then park returns at once */
		ops->unpark(p);
		ops->park(p);
		/* tokens do not accumulate: two unparks, one park, then a
		 * short park_until times out */
		if (ops->park_until) {
			ops->unpark(p);
			ops->unpark(p);
			ops->park(p);
			int64_t t0 = now_ns();
			if (ops->park_until(p, t0 + 2000000) != 0)
				fail("park_until returned a second token after two unparks and one park");
			if (now_ns() - t0 < 2000000)
				fail("park_until returned before its deadline");
			/* a pending token with a past deadline: either result, but
			 * the token must not be lost silently */
			ops->unpark(p);
			if (ops->park_until(p, now_ns() - 1) == 0)
				ops->park(p); /* still pending: returns at once */
			ops->unpark(p);
			if (ops->park_until(p, now_ns() + 1000000000) != 1)
				fail("park_until with a pending token did not report it");
		}
	}
	ops->destroy(p);

	struct pp s = {.ops = ops};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, pp_side, &s);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	/* the last unpark may still be pending on side 0's parker */
	ops->destroy(s.p[0]);
	ops->destroy(s.p[1]);
}

/* ---- lot ---- */

struct lotpp {
	const struct pb_lot *ops;
	_Alignas(64) uint32_t flag[2];
};

static void *lot_side(void *arg) {
	struct lotpp *s = arg;
	static atomic_int who;
	int me = atomic_fetch_add(&who, 1) & 1;
	for (int i = 0; i < ROUNDS; i++) {
		if (me == 1 || i > 0) {
			while (__atomic_load_n(&s->flag[me], __ATOMIC_SEQ_CST) == 0)
				s->ops->park(&s->flag[me], 0, -1);
			__atomic_store_n(&s->flag[me], 0, __ATOMIC_SEQ_CST);
		}
		__atomic_store_n(&s->flag[1 - me], 1, __ATOMIC_SEQ_CST);
		s->ops->unpark_one(&s->flag[1 - me]);
	}
	return NULL;
}

struct parked {
	const struct pb_lot *ops;
	uint32_t *word;
	atomic_int *in;
	int result;
};

static void *park_once(void *arg) {
	struct parked *a = arg;
	atomic_fetch_add(a->in, 1);
	a->result = a->ops->park(a->word, 0, -1);
	return NULL;
}

static void check_lot(const struct pb_impl *im) {
	const struct pb_lot *ops = im->lot;
	if (!ops->park || !ops->unpark_one || !ops->unpark_all) {
		fail("a required lot function is NULL");
		return;
	}
	uint32_t w = 1;
	if (ops->park(&w, 0, -1) != PB_PARK_INVALID)
		fail("park with *addr != expected did not return PB_PARK_INVALID");
	int64_t t0 = now_ns();
	w = 0;
	if (ops->park(&w, 0, t0 + 2000000) != PB_PARK_TIMED_OUT)
		fail("park with a deadline did not time out");
	if (now_ns() - t0 < 2000000)
		fail("park returned before its deadline");
	if (ops->unpark_one(&w) != 0 || ops->unpark_all(&w) != 0)
		fail("unpark on an empty address woke someone");

	struct lotpp s = {.ops = ops};
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, lot_side, &s);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);

	/* four threads parked on from: unpark_all wakes four; again with
	 * requeue: one woken, three moved onto to, then unpark_all(to) wakes
	 * three */
	enum { N = 4 };
	uint32_t from = 0, to = 0;
	for (int round = 0; round < 2; round++) {
		if (round == 1 && ops->requeue == NULL)
			break;
		atomic_int in = 0;
		struct parked a[N];
		pthread_t pt[N];
		for (int i = 0; i < N; i++) {
			a[i] = (struct parked){.ops = ops, .word = &from, .in = &in};
			pthread_create(&pt[i], NULL, park_once, &a[i]);
		}
		while (atomic_load(&in) < N)
			;
		usleep(20000); /* let them reach the queue */
		if (round == 0) {
			int n = ops->unpark_all(&from);
			if (n != N) {
				fprintf(stderr, "check: unpark_all woke %d of %d\n", n, N);
				fail("unpark_all did not wake every parked thread");
			}
		} else {
			int n = ops->requeue(&from, &to);
			if (n != N) {
				fprintf(stderr, "check: requeue returned %d for %d parked\n", n, N);
				fail("requeue did not return woken + moved");
			}
			usleep(20000);
			if (ops->unpark_all(&to) != N - 1)
				fail("the requeued threads were not on the target address");
		}
		for (int i = 0; i < N; i++) {
			pthread_join(pt[i], NULL);
			if (a[i].result != PB_PARK_UNPARKED)
				fail("a parked thread did not return PB_PARK_UNPARKED");
		}
	}
}

/* ---- mutex and condvar ---- */

struct locked {
	const struct pb_impl *im;
	void *m, *c;
	long counter;
	int go, waiting, woken;
};

static void *inc(void *arg) {
	struct locked *l = arg;
	for (int i = 0; i < 100000; i++) {
		l->im->mutex->lock(l->m);
		l->counter++;
		l->im->mutex->unlock(l->m);
	}
	return NULL;
}

static void *waiter(void *arg) {
	struct locked *l = arg;
	l->im->mutex->lock(l->m);
	l->waiting++;
	while (!l->go)
		l->im->condvar->wait(l->c, l->m);
	l->woken++;
	l->im->mutex->unlock(l->m);
	return NULL;
}

static void check_mutex(const struct pb_impl *im) {
	const struct pb_mutex *ops = im->mutex;
	if (!ops->create || !ops->lock || !ops->unlock || !ops->destroy) {
		fail("a required mutex function is NULL");
		return;
	}
	struct locked l = {.im = im, .m = ops->create()};
	if (ops->trylock) {
		if (ops->trylock(l.m) != 1)
			fail("trylock of a free mutex failed");
		ops->unlock(l.m);
	}
	pthread_t t[4];
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, inc, &l);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	if (l.counter != 400000)
		fail("the mutex let two threads in at once (counter short)");

	if (im->condvar) {
		const struct pb_condvar *cv = im->condvar;
		enum { N = 8 };
		l.c = cv->create();
		if (cv->wait_until) {
			ops->lock(l.m);
			int64_t t0 = now_ns();
			int r = cv->wait_until(l.c, l.m, t0 + 2000000);
			ops->unlock(l.m);
			if (r != 0 && now_ns() - t0 < 2000000)
				fail("wait_until returned 1 with no notify (allowed, but not expected here)");
		}
		pthread_t w[N];
		for (int i = 0; i < N; i++)
			pthread_create(&w[i], NULL, waiter, &l);
		for (;;) {
			ops->lock(l.m);
			int n = l.waiting;
			ops->unlock(l.m);
			if (n == N)
				break;
			usleep(1000);
		}
		usleep(20000);
		ops->lock(l.m);
		l.go = 1;
		int r = cv->notify_all(l.c);
		ops->unlock(l.m);
		if (r != -1 && r != N) {
			fprintf(stderr, "check: notify_all returned %d for %d waiters\n", r, N);
			fail("notify_all returned neither -1 nor the waiter count");
		}
		for (int i = 0; i < N; i++)
			pthread_join(w[i], NULL);
		if (l.woken != N)
			fail("not every waiter woke");
		cv->destroy(l.c);
	}
	ops->destroy(l.m);
}

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: check LIB.so\n");
		return 2;
	}
	signal(SIGALRM, on_alarm);
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "check: %s\n", dlerror());
		return 1;
	}
	const struct pb_plugin *(*entry)(void) =
	    (const struct pb_plugin *(*)(void))dlsym(h, PARKBENCH_PLUGIN_SYMBOL);
	if (!entry) {
		fprintf(stderr, "check: no %s in %s\n", PARKBENCH_PLUGIN_SYMBOL, argv[1]);
		return 1;
	}
	const struct pb_plugin *pl = entry();
	if (pl->abi != PARKBENCH_ABI_VERSION) {
		fprintf(stderr, "check: abi %u, want %d\n", pl->abi, PARKBENCH_ABI_VERSION);
		return 1;
	}
	printf("%s: %s\n", pl->name, pl->version);
	for (size_t i = 0; i < pl->n_impls; i++) {
		const struct pb_impl *im = &pl->impls[i];
		int before = failures;
		if (strlen(im->name) > 32 || strlen(im->summary) > 80) {
			current = im->name;
			fail("name longer than 32 bytes or summary longer than 80");
		}
		static char buf[128];
		alarm(30);
		if (im->parker) {
			snprintf(buf, sizeof buf, "%s parker", im->name);
			current = buf;
			check_parker(im);
		}
		if (im->lot) {
			snprintf(buf, sizeof buf, "%s lot", im->name);
			current = buf;
			check_lot(im);
		}
		if (im->mutex) {
			snprintf(buf, sizeof buf, "%s mutex%s", im->name, im->condvar ? " and condvar" : "");
			current = buf;
			check_mutex(im);
		}
		alarm(0);
		printf("  %-18s %s  %s%s%s%s\n", im->name, failures == before ? "ok  " : "FAIL",
		       im->parker ? (im->parker->prepare ? "thread-parker " : "token-parker ") : "",
		       im->lot ? "lot " : "", im->mutex ? "mutex " : "", im->condvar ? "condvar" : "");
	}
	return failures ? 1 : 0;
}
