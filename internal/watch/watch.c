//go:build (linux || darwin) && cgo

// The watchdog's list of slots, its scan and the crash note; the contract
// is in watch.h, watch_cgo.go is the Go side.

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "watch.h"

static pthread_mutex_t pbwd_mu = PTHREAD_MUTEX_INITIALIZER;
static pbwd_slot *pbwd_list;
static pthread_key_t pbwd_key;
static pthread_once_t pbwd_once = PTHREAD_ONCE_INIT;
static __thread pbwd_slot *pbwd_tls;

// An exiting thread's key destructor marks its slot; the next scan frees it.
static void pbwd_dead(void *w) { atomic_store_explicit(&((pbwd_slot *)w)->dead, 1, memory_order_release); }
static void pbwd_key_init(void) { pthread_key_create(&pbwd_key, pbwd_dead); }

static pbwd_slot *pbwd_attach(void) {
	pbwd_slot *w = aligned_alloc(128, sizeof *w);
	if (w == NULL)
		abort();
	memset(w, 0, sizeof *w);
	pthread_once(&pbwd_once, pbwd_key_init);
	pthread_setspecific(pbwd_key, w);
	pthread_mutex_lock(&pbwd_mu);
	w->next = pbwd_list;
	pbwd_list = w;
	pthread_mutex_unlock(&pbwd_mu);
	pbwd_tls = w;
	return w;
}

pbwd_slot *pbwd_self(void) {
	pbwd_slot *w = pbwd_tls;
	return __builtin_expect(w != NULL, 1) ? w : pbwd_attach();
}

int pbwd_scan(int limit, const char **impl, const char **lib, int *op, int *told) {
	pbwd_slot *hit = NULL;
	pthread_mutex_lock(&pbwd_mu);
	pbwd_slot **pp = &pbwd_list;
	while (*pp != NULL) {
		pbwd_slot *w = *pp;
		if (atomic_load_explicit(&w->dead, memory_order_acquire)) {
			*pp = w->next;
			free(w);
			continue;
		}
		uint64_t seq = atomic_load_explicit(&w->seq, memory_order_acquire);
		uint64_t progress = atomic_load_explicit(&w->progress, memory_order_relaxed);
		// A stretch told to stop has to return: its progress no longer
		// counts.
		int stopping = (seq & 1) != 0 && atomic_load_explicit(&w->stop_seq, memory_order_relaxed) == seq;
		if ((seq & 1) != 0 && seq == w->last_seq && (progress == w->last_progress || stopping)) {
			if (++w->stalled >= limit && hit == NULL && !w->reported) {
				w->reported = 1;
				hit = w;
			}
		} else {
			w->stalled = 0;
			w->reported = 0;
			w->last_seq = seq;
			w->last_progress = progress;
		}
		pp = &w->next;
	}
	if (hit != NULL) {
		const pbwd_site *site = atomic_load_explicit(&hit->site, memory_order_relaxed);
		*impl = site != NULL && site->who != NULL ? site->who->impl : NULL;
		*lib = site != NULL && site->who != NULL ? site->who->lib : NULL;
		*op = site != NULL ? site->op : PBWD_NONE;
		*told = atomic_load_explicit(&hit->stop_seq, memory_order_relaxed) == hit->last_seq;
	}
	pthread_mutex_unlock(&pbwd_mu);
	return hit != NULL;
}

static const char *const pbwd_ops[PBWD_NOPS] = {
	[PBWD_NONE] = "no call",
	[PBWD_CREATE] = "create",
	[PBWD_DESTROY] = "destroy",
	[PBWD_PREPARE] = "prepare",
	[PBWD_PARK] = "park",
	[PBWD_PARK_UNTIL] = "park_until",
	[PBWD_UNPARK] = "unpark",
	[PBWD_LOCK] = "lock",
	[PBWD_TRYLOCK] = "trylock",
	[PBWD_UNLOCK] = "unlock",
	[PBWD_WAIT] = "condvar wait",
	[PBWD_WAIT_UNTIL] = "condvar wait_until",
	[PBWD_NOTIFY_ONE] = "condvar notify_one",
	[PBWD_NOTIFY_ALL] = "condvar notify_all",
	[PBWD_LOT_PARK] = "lot park",
	[PBWD_LOT_UNPARK_ONE] = "lot unpark_one",
	[PBWD_LOT_UNPARK_ALL] = "lot unpark_all",
	[PBWD_LOT_REQUEUE] = "lot requeue",
	[PBWD_LOOP_LOCK] = "lock's C-thread loop (lock, unlock)",
	[PBWD_LOOP_PINGPONG] = "the C ping-pong (park, unpark)",
	[PBWD_LOOP_SELFWAKE] = "the C self-wake loop (unpark, park)",
	[PBWD_OWN_LOCK] = "its own lock loop",
	[PBWD_OWN_PINGPONG] = "the C ping-pong with its own wait",
	[PBWD_OWN_SELFWAKE] = "its own self-wake loop",
};

const char *pbwd_op_name(int op) {
	if (op < 0 || op >= PBWD_NOPS || pbwd_ops[op] == NULL)
		return "a call";
	return pbwd_ops[op];
}

// ---- The crash note. A fault in a library's code is Go's to report (it
// prints the signal and the stacks and exits with status 2), but Go's
// report names neither the library nor the implementation. The handler
// below runs first, on the faulting thread: if that thread is in a watched
// stretch, it writes one line naming them (write(2) only: async-signal-
// safe), then calls the handler that was there before it (Go's), with the
// same arguments, as Go asks of a handler installed after its own
// (SA_ONSTACK, and the previous handler called for the signals it does not
// take; os/signal's "Go programs that use cgo or SWIG").

static const int pbwd_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define PBWD_NSIGS ((int)(sizeof pbwd_sigs / sizeof pbwd_sigs[0]))
static struct sigaction pbwd_prev[PBWD_NSIGS];
static volatile sig_atomic_t pbwd_noted;

static void pbwd_puts(const char *s) {
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t k = write(2, s, n);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static const char *pbwd_signame(int sig) {
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGABRT: return "SIGABRT";
	}
	return "a signal";
}

static void pbwd_on_crash(int sig, siginfo_t *si, void *uc) {
	pbwd_slot *w = pbwd_tls;
	if (w != NULL && !pbwd_noted && (atomic_load_explicit(&w->seq, memory_order_relaxed) & 1) != 0) {
		pbwd_noted = 1;
		const pbwd_site *site = atomic_load_explicit(&w->site, memory_order_relaxed);
		const pbwd_who *who = site != NULL ? site->who : NULL;
		pbwd_puts("parkbench: crash: ");
		pbwd_puts(pbwd_signame(sig));
		pbwd_puts(" in implementation \"");
		pbwd_puts(who != NULL && who->impl != NULL ? who->impl : "?");
		pbwd_puts("\" of library ");
		pbwd_puts(who != NULL && who->lib != NULL ? who->lib : "?");
		pbwd_puts(", in ");
		pbwd_puts(pbwd_op_name(site != NULL ? site->op : PBWD_NONE));
		pbwd_puts(" (the library's code; Go's report of the signal follows)\n");
	}
	for (int i = 0; i < PBWD_NSIGS; i++) {
		if (pbwd_sigs[i] != sig)
			continue;
		struct sigaction *p = &pbwd_prev[i];
		if (p->sa_flags & SA_SIGINFO) {
			p->sa_sigaction(sig, si, uc);
			return;
		}
		if (p->sa_handler != SIG_DFL && p->sa_handler != SIG_IGN) {
			p->sa_handler(sig);
			return;
		}
		// No handler before this one: the default action, at once.
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
}

int pbwd_crash_note(void) {
	// Once: installed twice, the handler would chain to itself.
	static int installed;
	if (installed)
		return 0;
	installed = 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = pbwd_on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < PBWD_NSIGS; i++) {
		if (sigaction(pbwd_sigs[i], &sa, &pbwd_prev[i]) != 0)
			return errno;
	}
	return 0;
}
