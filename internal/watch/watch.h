// The watchdog's C side: one slot per thread that runs foreign code (a
// plugin's functions), on one list the scanner reads. watch.c keeps the
// list; this header is what every C file that calls foreign code includes
// (internal/plugin's trampolines, internal/cref's C-thread rows), so that
// the measured path writes its own slot inline.
//
// A slot's seq is odd while its thread is in a watched stretch and even
// outside one; its site says whose code and which call:
//   - a single call: pbw_enter before it (seq odd), pbw_leave_at after
//     (even): two stores per call (the first with release order, a plain
//     store on x86), and the site stored only when it differs from the
//     slot's (a load and a compare otherwise);
//   - a loop of calls (a C-thread row): pbw_enter once, pbw_progress once
//     per iteration (one relaxed store of the loop's own counter, which it
//     keeps in a register anyway), pbw_leave at the end.
// The scanner (pbw_scan) reports a slot whose seq has been odd, and whose
// seq and progress have not changed, for `limit` looks: a call that has
// not returned, or a loop that has not finished an iteration. A loop the library owns (ABI version
// 2) counts its iterations in a word of its own; pbw_watch_count makes the
// scanner read that word too, so the library's loop is watched without a
// store of the harness's per iteration.
//
// Nothing here is shared between threads in the measured path: a slot is
// its thread's alone (128 bytes, aligned: no false sharing with another
// thread's slot), the scanner only reads it four times a second.
#ifndef PB_WATCH_H
#define PB_WATCH_H

#include <stdatomic.h>
#include <stdint.h>

struct pb_impl;

// pbw_who names the code a watched stretch runs: the implementation and
// the library it came from (both live as long as the process).
typedef struct pbw_who {
	const char *impl;
	const char *lib;
} pbw_who;

// The operations a slot can be in (pbw_op_name has their names).
enum {
	PBW_NONE = 0,
	PBW_CREATE,
	PBW_DESTROY,
	PBW_PREPARE,
	PBW_PARK,
	PBW_PARK_UNTIL,
	PBW_UNPARK,
	PBW_LOCK,
	PBW_TRYLOCK,
	PBW_UNLOCK,
	PBW_WAIT,
	PBW_WAIT_UNTIL,
	PBW_NOTIFY_ONE,
	PBW_NOTIFY_ALL,
	PBW_LOT_PARK,
	PBW_LOT_UNPARK_ONE,
	PBW_LOT_UNPARK_ALL,
	PBW_LOT_REQUEUE,
	PBW_LOOP_LOCK,     // lock's C-thread loop: lock, unlock
	PBW_LOOP_PINGPONG, // latency's C ping-pong: park, unpark
	PBW_LOOP_SELFWAKE, // selfwake's C loop: unpark, park
	PBW_NOPS
};


// pbw_site is one call of one implementation: what a slot says it runs.
typedef struct pbw_site {
	const pbw_who *who;
	int op;
} pbw_site;

// pbw_foreign is one foreign implementation as the harness's C sees it:
// the library's struct pb_impl, who it is, and a site per operation.
// ext.Impl.C points to one (internal/plugin makes them with pbl_foreign;
// internal/cref's C-thread rows take them).
typedef struct pbw_foreign {
	const struct pb_impl *impl;
	pbw_who who;
	pbw_site sites[PBW_NOPS];
} pbw_foreign;

typedef struct pbw_slot {
	// Written by the slot's thread.
	_Atomic uint64_t seq;
	_Atomic uint64_t progress;
	_Atomic(const pbw_site *) site;
	// A loop's own count of iterations (ABI version 2), NULL when none.
	_Atomic(const _Atomic uint64_t *) count;
	// The scanner's, under the list's lock (another cache line).
	_Alignas(64) uint64_t last_seq;
	uint64_t last_progress, last_count;
	int stalled, reported;
	_Atomic int dead;
	struct pbw_slot *next;
} __attribute__((aligned(128))) pbw_slot;

// pbw_self_fn returns the calling thread's slot, made on its first call
// (watch.c's pbw_self; other packages get it from watch.Self()).
typedef pbw_slot *(*pbw_self_fn)(void);

#ifdef PBW_OFF
// -tags pbnowatch (the #cgo lines of internal/plugin and internal/cref):
// no stores, for measuring what they cost (scripts/plugin-overhead.sh
// --watch). Nothing is watched then.
static inline uint64_t pbw_enter(pbw_slot *w, const pbw_site *site) { (void)w, (void)site; return 0; }
static inline void pbw_leave_at(pbw_slot *w, uint64_t seq) { (void)w, (void)seq; }
static inline void pbw_leave(pbw_slot *w) { (void)w; }
static inline void pbw_progress(pbw_slot *w, uint64_t n) { (void)w, (void)n; }
#else
// pbw_enter starts a stretch at site and returns its (odd) seq.
static inline uint64_t pbw_enter(pbw_slot *w, const pbw_site *site) {
	if (atomic_load_explicit(&w->site, memory_order_relaxed) != site)
		atomic_store_explicit(&w->site, site, memory_order_relaxed);
	uint64_t seq = atomic_load_explicit(&w->seq, memory_order_relaxed) + 1;
	// Release: a scanner that reads this odd seq (acquire) reads this
	// stretch's site, not a previous one's.
	atomic_store_explicit(&w->seq, seq, memory_order_release);
	return seq;
}

// pbw_leave_at ends the single call pbw_enter returned seq for.
static inline void pbw_leave_at(pbw_slot *w, uint64_t seq) {
	atomic_store_explicit(&w->seq, seq + 1, memory_order_relaxed);
}

// pbw_leave ends a stretch (a loop's, after its ticks).
static inline void pbw_leave(pbw_slot *w) {
	atomic_store_explicit(&w->seq, atomic_load_explicit(&w->seq, memory_order_relaxed) + 1, memory_order_relaxed);
}

// pbw_progress says a loop's stretch moved: n is its iteration count (any
// number that changes from one iteration to the next).
static inline void pbw_progress(pbw_slot *w, uint64_t n) {
	atomic_store_explicit(&w->progress, n, memory_order_relaxed);
}
#endif

// pbw_watch_count makes the scanner also read *count (a loop's own
// iteration count) while the slot is in a stretch; NULL stops it.
static inline void pbw_watch_count(pbw_slot *w, const _Atomic uint64_t *count) {
	atomic_store_explicit(&w->count, count, memory_order_release);
}

// pbw_self returns the calling thread's slot (watch.c).
pbw_slot *pbw_self(void);

// pbw_foreign_init fills f's who and sites (name and lib must live as long
// as the process). Inline: each package's C is linked apart from watch.c's.
static inline void pbw_foreign_init(pbw_foreign *f, const struct pb_impl *impl, const char *name, const char *lib) {
	f->impl = impl;
	f->who.impl = name;
	f->who.lib = lib;
	for (int op = 0; op < PBW_NOPS; op++)
		f->sites[op] = (pbw_site){&f->who, op};
}

// pbw_scan looks at every slot once: for the first slot stalled in a
// stretch for limit looks and not yet reported (it is marked reported), it
// sets *impl, *lib and *op and returns 1; else 0. It frees the slots of
// exited threads.
int pbw_scan(int limit, const char **impl, const char **lib, int *op);

// pbw_op_name is op's name ("park", "lock", ...).
const char *pbw_op_name(int op);

// pbw_crash_note installs handlers of SIGSEGV, SIGBUS, SIGILL, SIGFPE and
// SIGABRT that, on a thread in a watched stretch, print which
// implementation, library and operation it was in, then pass the signal to
// the handler installed before (Go's). 0, or an errno.
int pbw_crash_note(void);

#endif
