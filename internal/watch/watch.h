// The watchdog's C side: one slot per thread that runs foreign code (a
// plugin's functions), on one list the scanner reads. watch.c keeps the
// list; this header is what every C file that calls foreign code includes
// (internal/plugin's trampolines, internal/cref's C-thread rows), so that
// the measured path writes its own slot inline.
//
// A slot's seq is odd while its thread is in a watched stretch and even
// outside one; its site says whose code and which call:
//   - a single call: pbwd_enter before it (seq odd), pbwd_leave_at after
//     (even): two stores per call (the first with release order, a plain
//     store on x86), and the site stored only when it differs from the
//     slot's (a load and a compare otherwise);
//   - a loop of calls (a C-thread row): pbwd_enter once, pbwd_progress once
//     per iteration (one relaxed store of the loop's own counter, which it
//     keeps in a register anyway), pbwd_leave at the end.
// The scanner (pbwd_scan) reports a slot whose seq has been odd, and whose
// seq and progress have not changed, for `limit` looks: a call that has
// not returned, or a loop that has not finished an iteration. A loop the
// library owns (ABI version 2) is watched the same way: the harness thread
// enters the stretch and hands the library &slot->progress as the loop's
// per-thread iteration count, which the library's loop bumps (it counts
// them anyway) and the harness reads when the loop returns. The slot
// outlives its thread (the scanner frees it), so the scanner never reads a
// count in freed memory.
//
// Nothing here is shared between threads in the measured path: a slot is
// its thread's alone (128 bytes, aligned: no false sharing with another
// thread's slot), the scanner only reads it four times a second.
#ifndef PB_WATCH_H
#define PB_WATCH_H

#include <stdatomic.h>
#include <stdint.h>

struct pb_impl;

// pbwd_who names the code a watched stretch runs: the implementation and
// the library it came from (both live as long as the process).
typedef struct pbwd_who {
	const char *impl;
	const char *lib;
} pbwd_who;

// The operations a slot can be in (pbwd_op_name has their names).
enum {
	PBWD_NONE = 0,
	PBWD_CREATE,
	PBWD_DESTROY,
	PBWD_PREPARE,
	PBWD_PARK,
	PBWD_PARK_UNTIL,
	PBWD_UNPARK,
	PBWD_LOCK,
	PBWD_TRYLOCK,
	PBWD_UNLOCK,
	PBWD_WAIT,
	PBWD_WAIT_UNTIL,
	PBWD_NOTIFY_ONE,
	PBWD_NOTIFY_ALL,
	PBWD_LOT_PARK,
	PBWD_LOT_UNPARK_ONE,
	PBWD_LOT_UNPARK_ALL,
	PBWD_LOT_REQUEUE,
	PBWD_LOOP_LOCK,     // lock's C-thread loop: lock, unlock
	PBWD_LOOP_PINGPONG, // latency's C ping-pong: park, unpark
	PBWD_LOOP_SELFWAKE, // selfwake's C loop: unpark, park
	PBWD_OWN_LOCK,      // the library's own lock loop (ABI version 2)
	PBWD_OWN_PINGPONG,  // the C ping-pong with the library's own wait
	PBWD_OWN_SELFWAKE,  // the library's own self-wake loop
	PBWD_NOPS
};


// pbwd_site is one call of one implementation: what a slot says it runs.
typedef struct pbwd_site {
	const pbwd_who *who;
	int op;
} pbwd_site;

// pbwd_foreign is one foreign implementation as the harness's C sees it:
// the library's struct pb_impl, who it is, and a site per operation.
// ext.Impl.C points to one (internal/plugin makes them with pbl_foreign;
// internal/cref's C-thread rows take them).
typedef struct pbwd_foreign {
	const struct pb_impl *impl;
	// The implementation's own loops (ABI version 2), NULL for none: the
	// loader sets it, never from a version-1 table.
	const struct pb_loops *loops;
	pbwd_who who;
	pbwd_site sites[PBWD_NOPS];
} pbwd_foreign;

typedef struct pbwd_slot {
	// Written by the slot's thread.
	_Atomic uint64_t seq;
	_Atomic uint64_t progress;
	_Atomic(const pbwd_site *) site;
	// Written by the harness thread that told a library's own loop on this
	// slot's thread to stop (pbwd_told_stop): the loop's seq then. From
	// there the loop's progress no longer counts: it must return.
	_Atomic uint64_t stop_seq;
	// The scanner's, under the list's lock (another cache line).
	_Alignas(64) uint64_t last_seq;
	uint64_t last_progress;
	int stalled, reported;
	_Atomic int dead;
	struct pbwd_slot *next;
} __attribute__((aligned(128))) pbwd_slot;

// pbwd_self_fn returns the calling thread's slot, made on its first call
// (watch.c's pbwd_self; other packages get it from watch.Self()).
typedef pbwd_slot *(*pbwd_self_fn)(void);

#ifdef PBWD_OFF
// -tags pbnowatch (the #cgo lines of internal/plugin and internal/cref):
// no stores, for measuring what they cost (scripts/plugin-overhead.sh
// --watch). Nothing is watched then.
static inline uint64_t pbwd_enter(pbwd_slot *w, const pbwd_site *site) { (void)w, (void)site; return 0; }
static inline void pbwd_leave_at(pbwd_slot *w, uint64_t seq) { (void)w, (void)seq; }
static inline void pbwd_leave(pbwd_slot *w) { (void)w; }
static inline void pbwd_progress(pbwd_slot *w, uint64_t n) { (void)w, (void)n; }
#else
// pbwd_enter starts a stretch at site and returns its (odd) seq.
static inline uint64_t pbwd_enter(pbwd_slot *w, const pbwd_site *site) {
	if (atomic_load_explicit(&w->site, memory_order_relaxed) != site)
		atomic_store_explicit(&w->site, site, memory_order_relaxed);
	uint64_t seq = atomic_load_explicit(&w->seq, memory_order_relaxed) + 1;
	// Release: a scanner that reads this odd seq (acquire) reads this
	// stretch's site, not a previous one's.
	atomic_store_explicit(&w->seq, seq, memory_order_release);
	return seq;
}

// pbwd_leave_at ends the single call pbwd_enter returned seq for.
static inline void pbwd_leave_at(pbwd_slot *w, uint64_t seq) {
	atomic_store_explicit(&w->seq, seq + 1, memory_order_relaxed);
}

// pbwd_leave ends a stretch (a loop's, after its ticks).
static inline void pbwd_leave(pbwd_slot *w) {
	atomic_store_explicit(&w->seq, atomic_load_explicit(&w->seq, memory_order_relaxed) + 1, memory_order_relaxed);
}

// pbwd_progress says a loop's stretch moved: n is its iteration count (any
// number that changes from one iteration to the next).
static inline void pbwd_progress(pbwd_slot *w, uint64_t n) {
	atomic_store_explicit(&w->progress, n, memory_order_relaxed);
}
#endif


// pbwd_self returns the calling thread's slot (watch.c).
pbwd_slot *pbwd_self(void);

// pbwd_foreign_init fills f's who and sites (name and lib must live as long
// as the process). Inline: each package's C is linked apart from watch.c's.
static inline void pbwd_foreign_init(pbwd_foreign *f, const struct pb_impl *impl, const char *name, const char *lib) {
	f->impl = impl;
	f->loops = NULL;
	f->who.impl = name;
	f->who.lib = lib;
	for (int op = 0; op < PBWD_NOPS; op++)
		f->sites[op] = (pbwd_site){&f->who, op};
}

// pbwd_told_stop says, from another thread, that w's thread was told to
// leave its stretch (a library's own loop, through the stop flag): if it is
// still in one, its progress stops counting, so a loop that goes on
// counting after the stop flag is reported as one that does not move.
// After the stop flag's store: a loop that already left is not marked.
static inline void pbwd_told_stop(pbwd_slot *w) {
	uint64_t seq = atomic_load_explicit(&w->seq, memory_order_acquire);
	if ((seq & 1) != 0)
		atomic_store_explicit(&w->stop_seq, seq, memory_order_relaxed);
}

// pbwd_scan looks at every slot once: for the first slot stalled in a
// stretch for limit looks and not yet reported (it is marked reported), it
// sets *impl, *lib and *op, *told 1 when the stretch was told to stop
// (pbwd_told_stop) and goes on, and returns 1; else 0. It frees the slots
// of exited threads.
int pbwd_scan(int limit, const char **impl, const char **lib, int *op, int *told);

// pbwd_op_name is op's name ("park", "lock", ...).
const char *pbwd_op_name(int op);

// pbwd_crash_note installs handlers of SIGSEGV, SIGBUS, SIGILL, SIGFPE and
// SIGABRT that, on a thread in a watched stretch, print which
// implementation, library and operation it was in, then pass the signal to
// the handler installed before (Go's). 0, or an errno.
int pbwd_crash_note(void);

#endif
