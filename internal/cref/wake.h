// The C side of parkbench wake (the waker's cost, perf bench futex's
// method): N C threads blocked on a futex word or a pthread condvar, and
// the timed wake of all of them from the calling thread; and the C
// producer/consumer over a bounded queue (parking_lot issue #448's case).
// See wake.c for the method and wake_cgo.go for the Go side.
#ifndef PB_WAKE_H
#define PB_WAKE_H

#include <stdint.h>

// What the waiters block on.
enum {
	PBW_COND = 0,         // pthread_cond_wait on one condvar + mutex
	PBW_FUTEX = 1,        // FUTEX_WAIT_PRIVATE on one word
	PBW_FUTEX_SHARED = 2  // FUTEX_WAIT (shared) on one word (perf -S)
};

// The timed operation.
enum {
	PBW_OP_BROADCAST = 0, // one pthread_cond_broadcast
	PBW_OP_SIGNAL = 1,    // n x pthread_cond_signal
	PBW_OP_WAKE = 2,      // FUTEX_WAKE(k) until n were woken
	PBW_OP_REQUEUE = 3    // FUTEX_CMP_REQUEUE(wake 0, requeue k) until n moved; then an untimed wake
};

typedef struct {
	int64_t total_ns; // CLOCK_MONOTONIC before the first call -> after the last
	long calls;       // calls made
	long done;        // threads woken (or requeued) as the calls reported; -1 when the API reports none
	int timed_out;    // the loop hit its bound before done reached n: a lost waiter
} pbw_result;

typedef struct pbw_set pbw_set;

// pbw_start creates n waiter threads of kind; cpus (n entries, -1:
// unpinned) or NULL. NULL and *err on failure.
pbw_set *pbw_start(int kind, int n, const int *cpus, int *err);
// pbw_counted is how many waiters have counted themselves in, right
// before their wait.
int pbw_counted(pbw_set *s);
// pbw_tid is waiter i's kernel thread id (0 until it runs).
int64_t pbw_tid(pbw_set *s, int i);
// pbw_pin_error is waiter i's pthread_attr_setaffinity_np result.
int pbw_pin_error(pbw_set *s, int i);
// pbw_fire sleeps settle_ns (nanosleep; 0: not at all), then runs the
// timed operation op (k per call: wakes or requeues) on the calling
// thread, at most bound_ns long; per_call (cap entries) gets each call's
// duration. The sleep is perf's usleep(100000) before its timed loop, in
// C, so that nothing runs between the waker's wake-up and the first clock
// read but the C code.
void pbw_fire(pbw_set *s, int op, int k, int64_t *per_call, long cap, int64_t bound_ns, int64_t settle_ns, pbw_result *res);
// pbw_join waits up to timeout_ns for every waiter to leave its wait and
// exit: 0, or ETIMEDOUT (a lost wakeup; the waiters are then released by
// force and joined).
int pbw_join(pbw_set *s, int64_t timeout_ns);
// pbw_free releases the waiters (if any still wait), joins and frees.
void pbw_free(pbw_set *s);

typedef struct {
	int64_t elapsed_ns; // producer's first push -> consumer's last pop
	int64_t switches;   // both threads' RUSAGE_THREAD nvcsw + nivcsw
	int64_t waits;      // pthread_cond_wait calls, both sides
	int err;            // 0; ETIMEDOUT (no progress within the bound); EPROTO (an item out of order)
} pbw_pc_result;

// pbw_pc runs one producer and one consumer (two C threads, unpinned) over
// a bounded queue of cap items guarded by one pthread mutex, with two
// condvars (not-full, not-empty) and one pthread_cond_signal per item on
// each side, with the mutex held (lock_held) or just after unlocking.
void pbw_pc(long items, int cap, int lock_held, int64_t bound_ns, pbw_pc_result *res);

#endif
