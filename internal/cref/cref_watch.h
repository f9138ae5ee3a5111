// The C-thread rows' part of the watchdog (internal/watch, watch.h): every
// loop that calls a plugin's functions from C threads (latency's ping-pong,
// selfwake's loop, lock's loop and its uncontended pairs) keeps its
// thread's slot: pbwd_enter when the loop starts, pbwd_progress once per
// iteration (one relaxed store of the loop's counter), pbwd_leave when it
// ends; the library's
// create and destroy are single watched calls. The built-in floors (c-futex,
// c-spin, c-pthread, ...) run the same code on a slot of their own that no
// scanner reads, so a floor and a plugin's row pay the same store.
#ifndef PB_CREF_WATCH_H
#define PB_CREF_WATCH_H

#include <stddef.h>

#include "watch.h"

// cref_wself is internal/watch's pbwd_self (cref_watch_init, from Go's init).
extern pbwd_self_fn cref_wself;
void cref_watch_init(void *self);

// cref_wslot is the calling thread's watched slot when f is a plugin's
// implementation, else spare (the caller's own, unwatched).
static inline pbwd_slot *cref_wslot(const pbwd_foreign *f, pbwd_slot *spare) {
	return f != NULL && cref_wself != NULL ? cref_wself() : spare;
}

// cref_site is f's site of op for the slot (NULL for a built-in floor).
static inline const pbwd_site *cref_site(const pbwd_foreign *f, int op) { return f != NULL ? &f->sites[op] : NULL; }

#endif
