/*
 * keyedevent.pml: the parking_lot keyed-event thread parker
 * (core/src/thread_parker/windows/keyed_event.rs) as ported in
 * internal/parkers (backend "keyedevent"), with std's rule that only the
 * owner writes PARKED (std sys/sync/thread_parking/windows7.rs), over NT
 * keyed events, driven by the parking lot's queue, with the timeout path and
 * a self-wake.
 *
 *   prepare_park: state = ARMED                         (owner, then queued)
 *   park:         if CAS(state, ARMED, PARKED) { NtWaitForKeyedEvent(key) }
 *   park_until:   if CAS(state, ARMED, PARKED) {
 *                     if NtWaitForKeyedEvent(key, timeout) == SUCCESS return true
 *                     if swap(state, TIMED_OUT) == UNPARKED { NtWaitForKeyedEvent(key); return true }
 *                     return false
 *                 } else return true
 *   timed_out:    state == TIMED_OUT                    (under the queue lock)
 *   unpark_lock:  if swap(state, UNPARKED) == PARKED -> handle releases
 *   unpark:       NtReleaseKeyedEvent(key)              (after the queue lock)
 *
 * NT keyed events are a rendezvous on (handle, key): a release blocks until
 * a wait on the key takes it, a wait blocks until a release comes (or its
 * timeout). Wine implements exactly this (server/event.c
 * keyed_event_signaled: a WAIT entry matches a RELEASE entry of the same
 * process and key on the same object, in either order). One key here (one
 * parker); rel counts releases not yet taken, kw is the owner blocked in a
 * wait, kwoken says a release took it.
 *
 * The lot's queue is one flag. A waker dequeues and calls unpark_lock in
 * one step (under the queue lock), then unpark. The owner may wake itself
 * (SELFWAKE, on by default): that is selfwake's PreparePark;
 * UnparkLock().Unpark(); Park, and it is also the lot's Condvar wait, whose
 * before_sleep unlocks the mutex after the thread is queued: if a notify
 * has meanwhile requeued the thread onto that mutex, the unlock's
 * unpark_one dequeues and unparks the thread itself.
 *
 * Checked: no invalid end state (a thread blocked for ever in a wait or in
 * a release: the lost wakeup, and the hang peculiar to keyed events); a
 * park that reports "unparked" consumed a distinct unpark_lock; every
 * release was taken by the end; LTL <> finished under weak fairness.
 *
 * Bug variants:
 *  BUG_KE_PARKED_AT_PREPARE  parking_lot as written: prepare_park stores
 *      PARKED, so a self-wake releases a key only the caller could wait on.
 *  BUG_KE_TIMEOUT_NO_TAKE    park_until returns false after a timeout even
 *      when UNPARKED: the waker's release is never taken.
 *  BUG_KE_RELEASE_ALWAYS     unpark releases whatever the old state: a
 *      release to an owner that timed out (or never waited) hangs.
 */
#include "prims.pml"

#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef SELFWAKE
#define SELFWAKE 1
#endif

#define UNPARKED 0
#define PARKED 1
#define TIMED_OUT 2
#define ARMED 3

byte state = UNPARKED;
bit queued = 0;
byte unparks = 0;      /* unpark_lock calls (by anyone) */
byte unparked = 0;     /* parks that reported "unparked" */

/* keyed event on the parker's key */
byte rel = 0;          /* releases issued and not yet taken */
bit kw = 0;            /* the owner is blocked in NtWaitForKeyedEvent */
bit kwoken = 0;        /* a release took the blocked owner */
bit finished = 0;

/* NtReleaseKeyedEvent: hand over to a blocked waiter, or wait for one. */
inline ke_release() {
	byte mine;
	atomic {
		if
		:: kw -> kw = 0; kwoken = 1; mine = 0
		:: else -> rel++; mine = 1
		fi
	};
	/* blocked until a wait took it (rel back to 0: one key, one owner) */
	(mine == 0 || rel == 0)
}

/* NtWaitForKeyedEvent: r = 1 on timeout (only if timed). */
inline ke_wait(timed, r) {
	atomic {
		r = 0;
		if
		:: rel > 0 -> rel--; kwoken = 1   /* a release was waiting: take it */
		:: else -> kw = 1; kwoken = 0
		fi
	};
	atomic {
		if
		:: kwoken -> kwoken = 0
		:: kw && timed && tos < MAXTO -> kw = 0; tos++; r = 1
		fi
	}
}

/* unpark_lock under the queue lock, returning whether to release. */
inline unpark_lock(doRelease) {
	atomic {
		queued == 1 -> queued = 0;
		unparks++;
#ifdef BUG_KE_RELEASE_ALWAYS
		doRelease = 1;
#else
		doRelease = (state == PARKED);
#endif
		state = UNPARKED
	}
}

active proctype Owner() {
	byte round = 0;
	bit timed, got, to, committed, doRelease;
	do
	:: round < ROUNDS ->
		/* prepare_park + enqueue, under the queue lock */
		atomic {
#ifdef BUG_KE_PARKED_AT_PREPARE
			state = PARKED;
#else
			state = ARMED;
#endif
			queued = 1
		};
		/* the self-wake: selfwake, or the condvar's before_sleep unlock */
		if
#if SELFWAKE
		:: unpark_lock(doRelease);    /* executable only while still queued */
			if
			:: doRelease -> ke_release()
			:: else -> skip
			fi
#endif
		:: true -> skip
		fi;
		if :: timed = 0 :: timed = 1 fi;
		/* commit: ARMED -> PARKED */
		atomic {
#ifdef BUG_KE_PARKED_AT_PREPARE
			committed = 1          /* parking_lot's park waits unconditionally */
#else
			if
			:: state == ARMED -> state = PARKED; committed = 1
			:: else -> committed = 0
			fi
#endif
		};
		got = 1;
		if
		:: committed ->
			ke_wait(timed, to);
			if
			:: to ->
#ifdef BUG_KE_TIMEOUT_NO_TAKE
				atomic { state = TIMED_OUT };
				got = 0
#else
				atomic {
					if
					:: state == UNPARKED -> got = 1
					:: else -> got = 0
					fi;
					state = TIMED_OUT
				};
				if
				:: got -> ke_wait(0, to)
				:: else -> skip
				fi
#endif
			:: else -> skip
			fi
		:: else -> skip
		fi;
		if
		:: !got ->
			/* the lot: under the queue lock, timed_out() decides */
			atomic {
				if
				:: state == TIMED_OUT -> queued = 0   /* really timed out: dequeue ourselves */
				:: else -> got = 1                    /* an unpark raced in: we were dequeued */
				fi
			}
		:: else -> skip
		fi;
		if
		:: got -> unparked++; assert(unparked <= unparks)
		:: else -> skip
		fi;
		round++
	:: else -> break
	od;
	assert(queued == 0);
	finished = 1
}

active proctype Waker() {
	bit doRelease;
	do
	:: unpark_lock(doRelease);
		if
		:: doRelease -> ke_release()
		:: else -> skip
		fi
	:: finished -> break
	od;
	assert(rel == 0)
}

#ifdef LTL
ltl live { <> finished }
#endif
