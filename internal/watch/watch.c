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

static pthread_mutex_t pbw_mu = PTHREAD_MUTEX_INITIALIZER;
static pbw_slot *pbw_list;
static pthread_key_t pbw_key;
static pthread_once_t pbw_once = PTHREAD_ONCE_INIT;
static __thread pbw_slot *pbw_tls;

// An exiting thread's key destructor marks its slot; the next scan frees it.
static void pbw_dead(void *w) { atomic_store_explicit(&((pbw_slot *)w)->dead, 1, memory_order_release); }
static void pbw_key_init(void) { pthread_key_create(&pbw_key, pbw_dead); }

static pbw_slot *pbw_attach(void) {
	pbw_slot *w = aligned_alloc(128, sizeof *w);
	if (w == NULL)
		abort();
	memset(w, 0, sizeof *w);
	pthread_once(&pbw_once, pbw_key_init);
	pthread_setspecific(pbw_key, w);
	pthread_mutex_lock(&pbw_mu);
	w->next = pbw_list;
	pbw_list = w;
	pthread_mutex_unlock(&pbw_mu);
	pbw_tls = w;
	return w;
}

pbw_slot *pbw_self(void) {
	pbw_slot *w = pbw_tls;
	return __builtin_expect(w != NULL, 1) ? w : pbw_attach();
}

int pbw_scan(int limit, const char **impl, const char **lib, int *op) {
	pbw_slot *hit = NULL;
	pthread_mutex_lock(&pbw_mu);
	pbw_slot **pp = &pbw_list;
	while (*pp != NULL) {
		pbw_slot *w = *pp;
		if (atomic_load_explicit(&w->dead, memory_order_acquire)) {
			*pp = w->next;
			free(w);
			continue;
		}
		uint64_t seq = atomic_load_explicit(&w->seq, memory_order_acquire);
		uint64_t progress = atomic_load_explicit(&w->progress, memory_order_relaxed);
		const _Atomic uint64_t *c = atomic_load_explicit(&w->count, memory_order_acquire);
		uint64_t count = c != NULL ? atomic_load_explicit(c, memory_order_relaxed) : 0;
		if ((seq & 1) != 0 && seq == w->last_seq && progress == w->last_progress && count == w->last_count) {
			if (++w->stalled >= limit && hit == NULL && !w->reported) {
				w->reported = 1;
				hit = w;
			}
		} else {
			w->stalled = 0;
			w->reported = 0;
			w->last_seq = seq;
			w->last_progress = progress;
			w->last_count = count;
		}
		pp = &w->next;
	}
	if (hit != NULL) {
		const pbw_site *site = atomic_load_explicit(&hit->site, memory_order_relaxed);
		*impl = site != NULL && site->who != NULL ? site->who->impl : NULL;
		*lib = site != NULL && site->who != NULL ? site->who->lib : NULL;
		*op = site != NULL ? site->op : PBW_NONE;
	}
	pthread_mutex_unlock(&pbw_mu);
	return hit != NULL;
}

static const char *const pbw_ops[PBW_NOPS] = {
	[PBW_NONE] = "no call",
	[PBW_CREATE] = "create",
	[PBW_DESTROY] = "destroy",
	[PBW_PREPARE] = "prepare",
	[PBW_PARK] = "park",
	[PBW_PARK_UNTIL] = "park_until",
	[PBW_UNPARK] = "unpark",
	[PBW_LOCK] = "lock",
	[PBW_TRYLOCK] = "trylock",
	[PBW_UNLOCK] = "unlock",
	[PBW_WAIT] = "condvar wait",
	[PBW_WAIT_UNTIL] = "condvar wait_until",
	[PBW_NOTIFY_ONE] = "condvar notify_one",
	[PBW_NOTIFY_ALL] = "condvar notify_all",
	[PBW_LOT_PARK] = "lot park",
	[PBW_LOT_UNPARK_ONE] = "lot unpark_one",
	[PBW_LOT_UNPARK_ALL] = "lot unpark_all",
	[PBW_LOT_REQUEUE] = "lot requeue",
	[PBW_LOOP_LOCK] = "lock's C-thread loop (lock, unlock)",
	[PBW_LOOP_PINGPONG] = "the C ping-pong (park, unpark)",
	[PBW_LOOP_SELFWAKE] = "the C self-wake loop (unpark, park)",
};

const char *pbw_op_name(int op) {
	if (op < 0 || op >= PBW_NOPS || pbw_ops[op] == NULL)
		return "a call";
	return pbw_ops[op];
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

static const int pbw_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define PBW_NSIGS ((int)(sizeof pbw_sigs / sizeof pbw_sigs[0]))
static struct sigaction pbw_prev[PBW_NSIGS];
static volatile sig_atomic_t pbw_noted;

static void pbw_puts(const char *s) {
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t k = write(2, s, n);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static const char *pbw_signame(int sig) {
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGABRT: return "SIGABRT";
	}
	return "a signal";
}

static void pbw_on_crash(int sig, siginfo_t *si, void *uc) {
	pbw_slot *w = pbw_tls;
	if (w != NULL && !pbw_noted && (atomic_load_explicit(&w->seq, memory_order_relaxed) & 1) != 0) {
		pbw_noted = 1;
		const pbw_site *site = atomic_load_explicit(&w->site, memory_order_relaxed);
		const pbw_who *who = site != NULL ? site->who : NULL;
		pbw_puts("parkbench: crash: ");
		pbw_puts(pbw_signame(sig));
		pbw_puts(" in implementation \"");
		pbw_puts(who != NULL && who->impl != NULL ? who->impl : "?");
		pbw_puts("\" of library ");
		pbw_puts(who != NULL && who->lib != NULL ? who->lib : "?");
		pbw_puts(", in ");
		pbw_puts(pbw_op_name(site != NULL ? site->op : PBW_NONE));
		pbw_puts(" (the library's code; Go's report of the signal follows)\n");
	}
	for (int i = 0; i < PBW_NSIGS; i++) {
		if (pbw_sigs[i] != sig)
			continue;
		struct sigaction *p = &pbw_prev[i];
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

int pbw_crash_note(void) {
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = pbw_on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (int i = 0; i < PBW_NSIGS; i++) {
		if (sigaction(pbw_sigs[i], &sa, &pbw_prev[i]) != 0)
			return errno;
	}
	return 0;
}
