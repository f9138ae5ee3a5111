// The plugin loader's C: dlopen and the table (plugin.c), and the
// trampolines through which Go threads call a library's functions (here,
// static inline, so that each cgo call is the trampoline and nothing more).
// plugin_cgo.go is the Go side; the watchdog's slot is internal/watch's
// (watch.h).
#ifndef PB_PLUGIN_H
#define PB_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "parkbench.h"
#include "watch.h"

// dlopen and dlsym, with dlerror's text copied into err (it is per thread
// and valid only until the next call). NULL on failure.
void *pbl_open(const char *path, char *err, size_t n);
void *pbl_sym(void *h, const char *name, char *err, size_t n);
// pbl_table calls the library's parkbench_plugin.
const struct pb_plugin *pbl_table(void *sym);

// pbl_foreign makes impl's pbwd_foreign (ext.Impl.C): lib is the library's
// path; both strings must live as long as the process.
pbwd_foreign *pbl_foreign(const struct pb_impl *impl, const char *lib);

// The calling thread's watch slot: internal/watch's, reached through the
// pointer pbl_watch_init was given, and cached per thread here. pbl_attach
// is the first call's way (out of line, so that the trampolines keep few
// registers across the library's call).
extern __thread pbwd_slot *pbl_tw __attribute__((tls_model("initial-exec")));
void pbl_watch_init(void *self);
pbwd_slot *pbl_attach(void);

// pbl_deadline is now (CLOCK_MONOTONIC) + rel, never below 0: a parker's
// and a condvar's deadline is never negative (include/parkbench.h).
static inline int64_t pbl_deadline(int64_t rel) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t now = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (rel < -now)
		return 0;
	return now + rel;
}

// The trampolines: Go cannot call a C function pointer, so each call goes
// through one of these (one cgo crossing each). Every one is watched: the
// slot says which implementation and which call (site, a pbwd_site of the
// implementation's pbwd_foreign) while it runs. The function, the library's
// object and the site are C memory, passed as integers: cgo checks every
// pointer argument for Go pointers (runtime.cgoCheckPointer, about a
// hundred instructions each), and these hold none.
//
// A thread's first call takes its slot (pbl_attach) in an out-of-line copy
// of the trampoline (the _slow functions of plugin.c), so that the inline
// one keeps only the slot and its sequence in registers across the
// library's call.
#ifdef PBWD_OFF
#define PBL_ENTER(site, slow) (void)(site)
#define PBL_LEAVE() (void)0
#else
#define PBL_ENTER(site, slow)                              \
	pbwd_slot *w_ = pbl_tw;                             \
	if (__builtin_expect(w_ == NULL, 0)) {             \
		slow;                                      \
	}                                                  \
	uint64_t s_ = pbwd_enter(w_, (const pbwd_site *)(site))
#define PBL_LEAVE() pbwd_leave_at(w_, s_)
#endif

uintptr_t pbl_create_slow(uintptr_t f, uintptr_t site);
void pbl_v_slow(uintptr_t f, uintptr_t p, uintptr_t site);
int pbl_i_slow(uintptr_t f, uintptr_t p, uintptr_t site);
int pbl_park_for_slow(uintptr_t f, uintptr_t p, int64_t rel, uintptr_t site);
void pbl_wait_slow(uintptr_t f, uintptr_t c, uintptr_t m, uintptr_t site);
int pbl_wait_for_slow(uintptr_t f, uintptr_t c, uintptr_t m, int64_t rel, uintptr_t site);
int pbl_lot_park_slow(uintptr_t f, uint32_t *a, uint32_t expected, int64_t rel, int timed, uintptr_t site);
int pbl_lot1_slow(uintptr_t f, uint32_t *a, uintptr_t site);
int pbl_lot2_slow(uintptr_t f, uint32_t *a, uint32_t *b, uintptr_t site);

static inline uintptr_t pbl_create(uintptr_t f, uintptr_t site) {
	PBL_ENTER(site, return pbl_create_slow(f, site));
	void *r = ((void *(*)(void))f)();
	PBL_LEAVE();
	return (uintptr_t)r;
}

// pbl_v calls a void function of one argument (prepare, unpark, unlock,
// destroy, park, lock), the site says which.
static inline void pbl_v(uintptr_t f, uintptr_t p, uintptr_t site) {
	PBL_ENTER(site, pbl_v_slow(f, p, site); return);
	((void (*)(void *))f)((void *)p);
	PBL_LEAVE();
}

// pbl_i calls an int function of one argument (trylock, notify_one,
// notify_all).
static inline int pbl_i(uintptr_t f, uintptr_t p, uintptr_t site) {
	PBL_ENTER(site, return pbl_i_slow(f, p, site));
	int r = ((int (*)(void *))f)((void *)p);
	PBL_LEAVE();
	return r;
}

static inline int pbl_park_for(uintptr_t f, uintptr_t p, int64_t rel, uintptr_t site) {
	PBL_ENTER(site, return pbl_park_for_slow(f, p, rel, site));
	int64_t d = pbl_deadline(rel);
	int r = ((int (*)(void *, int64_t))f)((void *)p, d);
	PBL_LEAVE();
	return r;
}

static inline void pbl_wait(uintptr_t f, uintptr_t c, uintptr_t m, uintptr_t site) {
	PBL_ENTER(site, pbl_wait_slow(f, c, m, site); return);
	((void (*)(void *, void *))f)((void *)c, (void *)m);
	PBL_LEAVE();
}

static inline int pbl_wait_for(uintptr_t f, uintptr_t c, uintptr_t m, int64_t rel, uintptr_t site) {
	PBL_ENTER(site, return pbl_wait_for_slow(f, c, m, rel, site));
	int64_t d = pbl_deadline(rel);
	int r = ((int (*)(void *, void *, int64_t))f)((void *)c, (void *)m, d);
	PBL_LEAVE();
	return r;
}

// pbl_lot_park: timed 0 passes deadline -1 (none), the lot's convention.
// a is Go memory (the word): a pointer, which cgo pins for the call.
static inline int pbl_lot_park(uintptr_t f, uint32_t *a, uint32_t expected, int64_t rel, int timed, uintptr_t site) {
	PBL_ENTER(site, return pbl_lot_park_slow(f, a, expected, rel, timed, site));
	int64_t d = timed ? pbl_deadline(rel) : -1;
	int r = ((int (*)(const uint32_t *, uint32_t, int64_t))f)(a, expected, d);
	PBL_LEAVE();
	return r;
}

// pbl_lot1 is unpark_one or unpark_all; pbl_lot2 requeue.
static inline int pbl_lot1(uintptr_t f, uint32_t *a, uintptr_t site) {
	PBL_ENTER(site, return pbl_lot1_slow(f, a, site));
	int r = ((int (*)(const uint32_t *))f)(a);
	PBL_LEAVE();
	return r;
}

static inline int pbl_lot2(uintptr_t f, uint32_t *a, uint32_t *b, uintptr_t site) {
	PBL_ENTER(site, return pbl_lot2_slow(f, a, b, site));
	int r = ((int (*)(const uint32_t *, const uint32_t *))f)(a, b);
	PBL_LEAVE();
	return r;
}

#endif
