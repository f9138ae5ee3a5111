// The C herd: E6's pthread variant. N C threads wait on one
// pthread_cond_t with one pthread_mutex_t; a C notifier thread, once told
// to fire, sets the condition and calls pthread_cond_broadcast (or N x
// pthread_cond_signal) with the mutex held or released. See herd_cgo.go
// for the method and herd.c for the threads.
#ifndef PB_HERD_H
#define PB_HERD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>

typedef struct {
	int64_t tid;          // published (release) once the thread runs
	int64_t acq_ns;       // CLOCK_MONOTONIC right after holding the mutex
	int64_t rel_ns;       // right before unlocking
	int64_t cpu;          // sched_getcpu() right after acquiring
	int64_t csw_pre;      // RUSAGE_THREAD nvcsw+nivcsw right before waiting
	int64_t csw_post;     // right after unlocking
	int64_t inv_pre;      // RUSAGE_THREAD nivcsw (involuntary: preempted) right before waiting
	int64_t inv_post;
	int64_t wait_returns; // pthread_cond_wait returns
	int64_t acquisitions; // times it left the wait loop holding the mutex
	int64_t pin_err;
} pb_herd_slot;

typedef struct pb_herd pb_herd;

typedef struct { pb_herd *h; int i; } pb_herd_arg;

struct pb_herd {
	int n;
	int64_t hold_ns;
	int one_loop, lock_held;
	int notifier_cpu;
	int *waiter_cpus; // n entries, -1: unpinned; NULL: all unpinned

	pthread_mutex_t mu;
	pthread_cond_t cv;
	int go;      // the condition, under mu
	int counted; // waiters counted in under mu before waiting

	pb_herd_slot *slots;
	pthread_t *threads;
	int started;
	pthread_t notifier;
	int notifier_started;
	sem_t fire, done;
	sem_t all_released, finish; // see pb_herd_waiter's end
	int released;               // atomic

	int64_t t0, notifier_cpu_seen;
	int64_t proc_pre, proc_post, ncsw_pre, ncsw_post;
	int64_t notifier_pin_err;
	pb_herd_arg *args;
};

// pb_herd_start creates the waiters and the notifier. On failure it returns
// NULL with *err set (after joining whatever it started: they are woken).
pb_herd *pb_herd_start(int n, int64_t hold_ns, int one_loop, int lock_held,
                              int notifier_cpu, const int *waiter_cpus, int *err);

int pb_herd_counted(pb_herd *h);

int64_t pb_herd_tid(pb_herd *h, int i);

void pb_herd_fire(pb_herd *h);

// pb_herd_wait blocks until the notifier has joined every waiter, at most
// timeout_ns; it returns 1 when done, 0 on timeout.
int pb_herd_wait(pb_herd *h, int64_t timeout_ns);

pb_herd_slot *pb_herd_slots(pb_herd *h);

void pb_herd_free(pb_herd *h);

#endif
