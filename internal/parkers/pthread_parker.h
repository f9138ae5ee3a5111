// The C half of the pthread parker (pthread_cgo.go is the Go side):
// parking_lot's unix.rs ThreadParker (parking_lot_core/src/thread_parker/
// unix.rs) over a pthread mutex and condvar. The operations are static
// inline here, so that a cgo call to one is that call and nothing more;
// construction is in pthread_parker.c.
#ifndef PB_PTHREAD_PARKER_H
#define PB_PTHREAD_PARKER_H

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

// Wait kinds; keep in step with waitKind in pthread_clock.go.
enum { PB_CHECK = 0, PB_FOREVER, PB_ABS_MONO, PB_ABS_WALL, PB_CLOCK_MONO, PB_REL_NP };

// Fault injection inside C. pb_park and pb_timedwait check should_park and
// call pthread_cond_wait without leaving C, so chaos.Point in Go cannot
// reach that window. In parkchaos builds pthread_chaos.go defines PB_CHAOS
// (a #cgo CFLAGS line, which applies to every cgo file of the package) and
// exports pbChaosPoint, which calls chaos.Point; PB_CHAOS_POINT calls it
// between the check and the wait, with the mutex held (a waker then blocks
// in pb_unpark_lock: the window is widened, the protocol untouched). In
// other builds PB_CHAOS_POINT is empty, so the C code is the same as
// without it and a park is still one cgo call. Keep the PB_AT_* values in
// step with pthread_chaos.go.
enum { PB_AT_PARK = 0, PB_AT_TIMEDWAIT = 1 };
#ifdef PB_CHAOS
extern void pbChaosPoint(int where);
#define PB_CHAOS_POINT(where) pbChaosPoint(where)
#else
#define PB_CHAOS_POINT(where) ((void)0)
#endif

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 30))
#define PB_HAVE_CLOCKWAIT 1
#endif

// The parker's C half. It is malloc'd, never Go memory: a pthread mutex and
// condvar must not move after initialisation, and C code keeps pointers to
// them; the Go garbage collector neither moves nor scans it.
typedef struct {
	pthread_mutex_t m;
	pthread_cond_t c;
	int should_park; // under m, except PreparePark's atomic store (Go side)
} pb_parker;

// The wait kind parking_lot's unix.rs uses on this OS: a CLOCK_MONOTONIC
// condattr except where pthread_condattr_setclock is missing (Apple, and
// upstream also excludes Android), where it is CLOCK_REALTIME.
static inline int pb_native_kind(void) {
#if defined(__APPLE__) || defined(__ANDROID__)
	return PB_ABS_WALL;
#else
	return PB_ABS_MONO;
#endif
}

// The wait kind of the relative-wait behaviour on this OS.
static inline int pb_relative_kind(void) {
#if defined(__APPLE__)
	return PB_REL_NP;
#elif defined(PB_HAVE_CLOCKWAIT)
	return PB_CLOCK_MONO;
#else
	return PB_ABS_MONO;
#endif
}

// pb_new makes a parker (malloc'd; NULL when out of memory), its condvar
// on CLOCK_MONOTONIC when mono_attr and the OS has
// pthread_condattr_setclock; pb_free destroys it. They are in
// pthread_parker.c: not on any timed path.
pb_parker *pb_new(int mono_attr);
void pb_free(pb_parker *p);

// unix.rs park: lock; while should_park: cond_wait; unlock. Returns the
// number of cond_waits (0: already unparked, nothing slept).
static inline int pb_park(pb_parker *p) {
	int n = 0;
	pthread_mutex_lock(&p->m);
	while (p->should_park) {
		PB_CHAOS_POINT(PB_AT_PARK);
		pthread_cond_wait(&p->c, &p->m);
		n++;
	}
	pthread_mutex_unlock(&p->m);
	return n;
}

// One turn of unix.rs park_until's loop: lock; if still should_park, one
// timed wait of the given kind; report (bit 0) whether should_park is now
// false and (bit 1) whether a wait was made. The Go side loops, re-checking
// the monotonic clock and recomputing the timespec, as upstream's loop does.
static inline int pb_timedwait(pb_parker *p, int kind, long long sec, long nsec) {
	struct timespec ts;
	int waited = 0, r;
	ts.tv_sec = (time_t)sec;
	ts.tv_nsec = nsec;
	pthread_mutex_lock(&p->m);
	if (p->should_park && kind != PB_CHECK) {
		waited = 2;
		PB_CHAOS_POINT(PB_AT_TIMEDWAIT);
		switch (kind) {
		case PB_FOREVER:
			for (;;) {
				pthread_cond_wait(&p->c, &p->m);
				if (!p->should_park) break;
				PB_CHAOS_POINT(PB_AT_TIMEDWAIT);
			}
			break;
		case PB_ABS_MONO:
		case PB_ABS_WALL:
			pthread_cond_timedwait(&p->c, &p->m, &ts);
			break;
		case PB_CLOCK_MONO:
#if defined(PB_HAVE_CLOCKWAIT)
			pthread_cond_clockwait(&p->c, &p->m, CLOCK_MONOTONIC, &ts);
#else
			pthread_cond_timedwait(&p->c, &p->m, &ts);
#endif
			break;
		case PB_REL_NP:
#if defined(__APPLE__)
			pthread_cond_timedwait_relative_np(&p->c, &p->m, &ts);
#else
			pthread_cond_timedwait(&p->c, &p->m, &ts);
#endif
			break;
		}
	}
	r = !p->should_park;
	pthread_mutex_unlock(&p->m);
	return r | waited;
}

// unix.rs timed_out: takes the mutex, because UnparkHandle::unpark may be
// running concurrently without the queue lock.
static inline int pb_timed_out(pb_parker *p) {
	int r;
	pthread_mutex_lock(&p->m);
	r = p->should_park;
	pthread_mutex_unlock(&p->m);
	return r;
}

// unix.rs unpark_lock: lock the target's mutex (under the queue lock).
static inline void pb_unpark_lock(pb_parker *p) { pthread_mutex_lock(&p->m); }

// unix.rs UnparkHandle::unpark: clear should_park and signal while still
// holding the mutex, then unlock.
static inline void pb_unpark(pb_parker *p) {
	// Atomic, because the owner's next PreparePark may store 1 without
	// the mutex at the same moment (a late wake in a flag protocol such as
	// the latency ping-pong). Relaxed is enough: the mutex orders this
	// store with the owner's reads, which are all under it.
	__atomic_store_n(&p->should_park, 0, __ATOMIC_RELAXED);
	pthread_cond_signal(&p->c);
	pthread_mutex_unlock(&p->m);
}

static inline void pb_clock_monotonic(long long *sec, long *nsec) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	*sec = ts.tv_sec;
	*nsec = ts.tv_nsec;
}

static inline void pb_sched_yield(void) { sched_yield(); }

#endif // PB_PTHREAD_PARKER_H
