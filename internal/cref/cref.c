//go:build (linux || darwin) && cgo

// The C reference of E12: the same ping-pong as internal/experiments'
// latency runner, between two C threads (pthread_create), with no Go runtime
// anywhere in the loop. See cref.h for the contract, cref_os.h for what
// differs between Linux (futex) and darwin (ulock), and cref.go for the Go
// side.

#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cref.h"
#include "cref_os.h"
#include "cref_watch.h"
#include "parkbench.h"

pbwd_self_fn cref_wself;

void cref_watch_init(void *self) { cref_wself = (pbwd_self_fn)self; }

// One side's mailbox. The waker writes stamp (and, when sampled, its CPU),
// then sets flag; the woken side reads stamp after it sees flag (acquire),
// so it always reads this wake's stamp. flag is also the futex word. The
// whole slot is one cache line: the wake moves one line between cores, as
// in the Go runner.
typedef struct {
	_Atomic uint32_t flag;
	_Atomic int32_t cpu;
	_Atomic int64_t stamp;
	char pad[64 - 16];
} __attribute__((aligned(64))) cref_slot;

struct cref_pair {
	cref_slot slot[2];
	int mode;
	// CREF_PLUGIN: the plugin's parker (each side's made by create on
	// that side's thread), or, when it has none, its lot operations; f
	// names them for the watchdog (NULL for the built-in floors).
	const pbwd_foreign *f;
	const struct pb_parker *pk;
	const struct pb_lot *lot;
	// CREF_OWN: the library's own wait (struct pb_loops's pingpong_wait).
	void (*own_wait)(void *parker, const uint32_t *flag);
	void *ph[2];
	int cpu[2];
	int sample_cpu;
	long gap_ns;
	pthread_t th[2];
	int started;
	cref_barrier start, end;
	// Set by cref_round before the start barrier, read by both threads
	// after it (the barrier orders them).
	long n;
	int quit;
	// stop is set by cref_stop (SIGINT/SIGTERM on the Go side) and read by
	// side 0 once per round trip; see run_round.
	_Atomic int stop;
	int64_t *samples; // 2*cap: side 0 writes [0,n), side 1 [n,2n)
	// ends, when cref_enable_ends made it: the woken side's clock reading
	// per sample (same layout), for --anatomy's join with a trace.
	int64_t *ends;
	int tid[2];
	long cap;
	cref_side res[2];
	int pin_err[2];
};

static inline int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// wait_flag returns when s->flag is set. It counts a wait that did not
// sleep: the flag was already set at the first look, or no FUTEX_WAIT of
// this wait slept (each found the word changed: EAGAIN), the same per-wait
// rule as the Go runner. (ulock cannot tell: on darwin only the first look
// counts.)
//
// No wake is lost: FUTEX_WAIT(addr, 0) (darwin: __ulock_wait) compares the
// word with 0 under the kernel's wait-queue lock and only then sleeps; the
// waker stores 1 before FUTEX_WAKE (__ulock_wake), which takes the same
// lock. Either the 1 is seen at the comparison (EAGAIN) or the waiter is
// queued when the wake runs.
// It returns 1 for such a wait, whose sample run_round then stores as ~v
// (negative), as the Go runner does.
static inline int wait_flag(struct cref_pair *p, int me, cref_slot *s, int mode, uint64_t *nosleep) {
	if (atomic_load_explicit(&s->flag, memory_order_acquire)) {
		(*nosleep)++;
		return 1;
	}
	if (mode == CREF_PLUGIN) {
		// A token parker: park until the flag is set (a token left by
		// an earlier, unneeded wake only costs a turn of the loop). A
		// thread parker: arm, look again, park (the unpark that follows
		// the flag's store is after the arming, so park returns). The
		// lot: park while the flag is 0, read under the key's lock.
		// Whether a wait slept is the library's secret: only the first
		// look counts.
		if (p->own_wait != NULL) {
			p->own_wait(p->ph[me], (const uint32_t *)&s->flag);
		} else if (p->pk != NULL && p->pk->prepare != NULL) {
			while (!atomic_load_explicit(&s->flag, memory_order_acquire)) {
				p->pk->prepare(p->ph[me]);
				if (!atomic_load_explicit(&s->flag, memory_order_acquire))
					p->pk->park(p->ph[me]);
			}
		} else if (p->pk != NULL) {
			while (!atomic_load_explicit(&s->flag, memory_order_acquire))
				p->pk->park(p->ph[me]);
		} else {
			while (!atomic_load_explicit(&s->flag, memory_order_acquire))
				p->lot->park((const uint32_t *)&s->flag, 0, -1);
		}
		return 0;
	}
	if (mode == CREF_SPIN) {
		// Plain load loop, no PAUSE: the same loop as the Go spin
		// backend and the probe, so the two are comparable.
		while (!atomic_load_explicit(&s->flag, memory_order_acquire))
			;
		return 0;
	}
	int slept = 0;
	while (!atomic_load_explicit(&s->flag, memory_order_acquire)) {
		if (cref_word_wait(&s->flag, 0))
			slept = 1;
	}
	if (!slept)
		(*nosleep)++;
	return !slept;
}

// wake_word wakes side peer's waiter after its flag was stored.
static inline void wake_word(struct cref_pair *p, int peer) {
	if (p->mode == CREF_SPIN)
		return;
	if (p->mode != CREF_PLUGIN)
		cref_word_wake(&p->slot[peer].flag);
	else if (p->pk != NULL)
		p->pk->unpark(p->ph[peer]);
	else
		p->lot->unpark_one((const uint32_t *)&p->slot[peer].flag);
}

static inline void send(struct cref_pair *p, int peer, long i) {
	cref_slot *s = &p->slot[peer];
	if (p->gap_ns > 0) {
		struct timespec ts = {p->gap_ns / 1000000000L, p->gap_ns % 1000000000L};
		nanosleep(&ts, NULL);
	}
	if (p->sample_cpu && (i & 15) == 0)
		atomic_store_explicit(&s->cpu, cref_getcpu(), memory_order_relaxed);
	atomic_store_explicit(&s->stamp, now_ns(), memory_order_relaxed);
	atomic_store_explicit(&s->flag, 1, memory_order_release);
	wake_word(p, peer);
}

// run_round is one side's part of a round of n round trips. Side 0 starts
// each trip (send, then wait); side 1 answers (wait, then send). The woken
// side clears its own flag before it sends back, and the peer only sets it
// again after receiving that send, so a flag is never set twice in a row.
static void run_round(struct cref_pair *p, int me, pbwd_slot *w) {
	int peer = 1 - me;
	long n = p->n;
	int64_t *out = p->samples + (long)me * n;
	cref_slot *s = &p->slot[me];
	cref_side r = {0};
	r.done = n;
	int64_t csw0 = cref_thread_csw(me);
	// Watched from here to the round's end: the round trips are the
	// progress.
	pbwd_enter(w, cref_site(p->f, p->own_wait != NULL ? PBWD_OWN_PINGPONG : PBWD_LOOP_PINGPONG));
	for (long i = 0; i < n; i++) {
		pbwd_progress(w, (uint64_t)i);
		if (me == 0) {
			// A stop request ends the round here, between round trips:
			// side 1 is then waiting for this side's send, so it is told
			// with a flag value of 2 instead (and woken), and leaves its
			// loop too. Checked once per trip: one relaxed load, so a
			// signal is honoured within a round trip instead of after the
			// whole round (which once ran on for 65 s after SIGINT).
			if (atomic_load_explicit(&p->stop, memory_order_relaxed)) {
				r.done = i;
				atomic_store_explicit(&p->slot[peer].flag, 2, memory_order_release);
				wake_word(p, peer);
				break;
			}
			send(p, peer, i);
		}
		int nosleep = wait_flag(p, me, s, p->mode, &r.nosleep);
		if (me == 1 && atomic_load_explicit(&s->flag, memory_order_acquire) == 2) {
			r.done = i;
			break;
		}
		int64_t t = now_ns();
		int64_t v = t - atomic_load_explicit(&s->stamp, memory_order_relaxed);
		out[i] = nosleep ? ~v : v;
		if (p->ends != NULL)
			p->ends[(long)me * n + i] = t;
		if (p->sample_cpu && (i & 15) == 0) {
			r.cpu_samples++;
			if (cref_getcpu() == atomic_load_explicit(&s->cpu, memory_order_relaxed))
				r.same_cpu++;
		}
		atomic_store_explicit(&s->flag, 0, memory_order_relaxed);
		if (me == 1)
			send(p, peer, i);
	}
	pbwd_leave(w);
	r.csw = cref_thread_csw(me) - csw0;
	p->res[me] = r;
}

struct thread_arg {
	struct cref_pair *p;
	int me;
};

static void *thread_main(void *a) {
	struct thread_arg arg = *(struct thread_arg *)a;
	free(a);
	struct cref_pair *p = arg.p;
	int me = arg.me;
	p->tid[me] = cref_gettid(); // read by cref_tid after the first round's barriers
	if (p->cpu[me] >= 0)
		p->pin_err[me] = cref_pin(p->cpu[me]);
	pbwd_slot spare, *w = cref_wslot(p->f, &spare);
	// The parker is made on its owner thread, before the first round:
	// the start barrier orders it before the peer's first unpark.
	if (p->pk != NULL) {
		pbwd_enter(w, cref_site(p->f, PBWD_CREATE));
		p->ph[me] = p->pk->create();
		pbwd_leave(w);
	}
	for (;;) {
		cref_barrier_wait(&p->start);
		if (p->quit) {
			if (p->pk != NULL) {
				pbwd_enter(w, cref_site(p->f, PBWD_DESTROY));
				p->pk->destroy(p->ph[me]);
				pbwd_leave(w);
			}
			return NULL;
		}
		run_round(p, me, w);
		cref_barrier_wait(&p->end);
	}
}

cref_pair *cref_open(int mode, const pbwd_foreign *f, int cpu0, int cpu1, int sample_cpu, long gap_ns, long cap, int *err) {
	struct cref_pair *p;
	*err = 0;
	if (posix_memalign((void **)&p, 64, sizeof *p) != 0) {
		*err = ENOMEM;
		return NULL;
	}
	memset(p, 0, sizeof *p);
	if (mode == CREF_OWN) {
		// The plugin's row, waiting in its own code.
		mode = CREF_PLUGIN;
		p->own_wait = f->loops->pingpong_wait;
	}
	p->mode = mode;
	if (mode == CREF_PLUGIN) {
		p->f = f;
		p->pk = f->impl->parker;
		p->lot = f->impl->parker == NULL ? f->impl->lot : NULL;
	}
	p->cpu[0] = cpu0;
	p->cpu[1] = cpu1;
	p->sample_cpu = sample_cpu && cref_can_sample_cpu();
	p->gap_ns = gap_ns;
	p->cap = cap;
	p->samples = calloc(2 * (size_t)cap, sizeof(int64_t));
	if (p->samples == NULL) {
		free(p);
		*err = ENOMEM;
		return NULL;
	}
	cref_barrier_init(&p->start, 3);
	cref_barrier_init(&p->end, 3);
	for (int i = 0; i < 2; i++) {
		struct thread_arg *a = malloc(sizeof *a);
		a->p = p;
		a->me = i;
		int e = pthread_create(&p->th[i], NULL, thread_main, a);
		if (e != 0) {
			free(a);
			*err = e;
			// A thread already started waits on a barrier of 3
			// that can no longer complete: it and p are leaked
			// (error path only; the process cannot make threads).
			return NULL;
		}
	}
	p->started = 1;
	return p;
}

int cref_pin_error(cref_pair *p, int me) { return p->pin_err[me]; }

int cref_tid(cref_pair *p, int me) { return p->tid[me]; }

int cref_enable_ends(cref_pair *p) {
	if (p->ends == NULL)
		p->ends = calloc(2 * (size_t)p->cap, sizeof(int64_t));
	return p->ends != NULL ? 0 : ENOMEM;
}

int64_t *cref_ends(cref_pair *p) { return p->ends; }

void cref_round(cref_pair *p, long n, cref_side *res0, cref_side *res1, int64_t **samples) {
	if (n > p->cap)
		n = p->cap;
	p->n = n;
	atomic_store(&p->slot[0].flag, 0);
	atomic_store(&p->slot[1].flag, 0);
	cref_barrier_wait(&p->start);
	cref_barrier_wait(&p->end);
	*res0 = p->res[0];
	*res1 = p->res[1];
	*samples = p->samples;
}

void cref_stop(cref_pair *p) { atomic_store_explicit(&p->stop, 1, memory_order_relaxed); }

void cref_close(cref_pair *p) {
	if (p == NULL)
		return;
	p->quit = 1;
	cref_barrier_wait(&p->start);
	pthread_join(p->th[0], NULL);
	pthread_join(p->th[1], NULL);
	cref_barrier_destroy(&p->start);
	cref_barrier_destroy(&p->end);
	free(p->samples);
	free(p->ends);
	free(p);
}

// cref_selfwake times nsamples samples of pairs wake-then-wait pairs on the
// calling thread, writing each sample's elapsed ns into out. The wait must
// return at once: c-futex (c-ulock) does FUTEX_WAKE (__ulock_wake; nobody
// waits) and then FUTEX_WAIT (__ulock_wait) with an expected value that
// does not match the word, which the kernel answers without sleeping
// (EAGAIN; ulock returns success, and a ulock wait that slept would never
// return, having no waker); c-spin stores the flag and then finds it set.
// It returns the number of waits that slept (must be 0).
long cref_selfwake(int mode, long pairs, long nsamples, int64_t *out) {
	static _Atomic uint32_t word;
	long slept = 0;
	for (long k = 0; k < nsamples; k++) {
		int64_t t0 = now_ns();
		for (long i = 0; i < pairs; i++) {
			if (mode != CREF_SPIN) {
				atomic_store_explicit(&word, 1, memory_order_release);
				cref_word_wake(&word);
				// Expect 0, the word is 1: no sleep.
				if (cref_word_wait(&word, 0) && CREF_SLEEP_MODE == CREF_FUTEX)
					slept++;
			} else {
				atomic_store_explicit(&word, 1, memory_order_release);
				while (!atomic_load_explicit(&word, memory_order_acquire))
					;
				atomic_store_explicit(&word, 0, memory_order_relaxed);
			}
		}
		out[k] = now_ns() - t0;
	}
	return slept;
}

// cref_selfwake_plugin is cref_selfwake with f's parker: a token
// parker's unpark then park (the token makes park return at once), a
// thread parker's prepare, unpark, park; or, without a parker, the lot's
// unpark_one (nobody parked) then park with an expected value the word
// does not hold (invalid: it returns at once, as c-futex's EAGAIN). Whether
// a wait slept is the library's to know: nothing is counted.
void cref_selfwake_plugin(const pbwd_foreign *f, long pairs, long nsamples, int64_t *out) {
	static _Atomic uint32_t word = 1;
	const struct pb_impl *impl = f->impl;
	const struct pb_parker *pk = impl->parker;
	pbwd_slot spare, *w = cref_wslot(f, &spare);
	void *h = NULL;
	if (pk != NULL) {
		pbwd_enter(w, cref_site(f, PBWD_CREATE));
		h = pk->create();
		pbwd_leave(w);
	}
	pbwd_enter(w, cref_site(f, PBWD_LOOP_SELFWAKE));
	uint64_t it = 0; // pairs done: the progress
	for (long k = 0; k < nsamples; k++) {
		int64_t t0 = now_ns();
		if (pk != NULL && pk->prepare != NULL) {
			for (long i = 0; i < pairs; i++) {
				pbwd_progress(w, ++it);
				pk->prepare(h);
				pk->unpark(h);
				pk->park(h);
			}
		} else if (pk != NULL) {
			for (long i = 0; i < pairs; i++) {
				pbwd_progress(w, ++it);
				pk->unpark(h);
				pk->park(h);
			}
		} else {
			for (long i = 0; i < pairs; i++) {
				pbwd_progress(w, ++it);
				impl->lot->unpark_one((const uint32_t *)&word);
				impl->lot->park((const uint32_t *)&word, 0, -1);
			}
		}
		out[k] = now_ns() - t0;
	}
	pbwd_leave(w);
	if (pk != NULL) {
		pbwd_enter(w, cref_site(f, PBWD_DESTROY));
		pk->destroy(h);
		pbwd_leave(w);
	}
}

// cref_selfwake_own: the library's loop runs the pairs of one sample; the
// harness keeps the clock, one call per sample (pairs of them, 100 in
// parkbench selfwake: the call is a hundredth of the sample or less). The
// slot's progress word is the loop's count, carried across samples.
int cref_selfwake_own(const pbwd_foreign *f, long pairs, long nsamples, int64_t *out, uint64_t *got, uint64_t *counted) {
	static _Atomic uint32_t word = 1;
	const struct pb_parker *pk = f->impl->parker;
	uint64_t (*loop)(void *, const uint32_t *, uint64_t, uint64_t *) = f->loops->selfwake;
	pbwd_slot spare, *w = cref_wslot(f, &spare);
	uint64_t *count = (uint64_t *)&w->progress;
	void *h = NULL;
	int bad = 0;
	if (pk != NULL) {
		pbwd_enter(w, cref_site(f, PBWD_CREATE));
		h = pk->create();
		pbwd_leave(w);
	}
	atomic_store_explicit(&w->progress, 0, memory_order_relaxed);
	pbwd_enter(w, cref_site(f, PBWD_OWN_SELFWAKE));
	for (long k = 0; k < nsamples; k++) {
		uint64_t c0 = atomic_load_explicit(&w->progress, memory_order_relaxed);
		int64_t t0 = now_ns();
		uint64_t n = loop(h, (const uint32_t *)&word, (uint64_t)pairs, count);
		out[k] = now_ns() - t0;
		uint64_t c1 = atomic_load_explicit(&w->progress, memory_order_relaxed);
		if (n != (uint64_t)pairs || c1 - c0 != (uint64_t)pairs) {
			*got = n;
			*counted = c1 - c0;
			bad = 1;
			break;
		}
	}
	pbwd_leave(w);
	if (pk != NULL) {
		pbwd_enter(w, cref_site(f, PBWD_DESTROY));
		pk->destroy(h);
		pbwd_leave(w);
	}
	return bad;
}
