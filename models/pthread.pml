/*
 * pthread.pml: the parking_lot_core Unix thread parker (thread_parker/unix.rs),
 * as ported in internal/parkers (backend "pthread").
 *
 *   prepare_park: should_park = true
 *   park:         lock(m); while should_park { cond_wait(c, m) }; unlock(m)
 *   park_until:   lock(m); while should_park { if timed out { unlock; return false }
 *                                               cond_timedwait(c, m, d) }; unlock; return true
 *   timed_out:    lock(m); r = should_park; unlock(m); return r
 *   unpark_lock:  lock(m)                                  (under the queue lock)
 *   unpark:       should_park = false; signal(c); unlock(m) (after the queue lock)
 *
 * The queue is abstracted to one flag (see futex.pml). Round 1 uses park,
 * round 2 park_until (which may time out; the waiter then re-checks with
 * timed_out under the queue lock, as the lot does, and a late unpark counts
 * as an unpark).
 *
 * Checked: no invalid end state (lost wakeup = deadlock), no return before
 * the unpark (park) / no "timed out" after an unpark was marked, LTL <> finished.
 *
 * BUG_PTHREAD_NO_MUTEX: unpark_lock does not take the mutex and unpark does not
 * hold it: the waker can set should_park=false and signal between the
 * check of the waiter and its cond_wait, and the signal is lost.
 */
#include "prims.pml"

byte m = 0;            /* the mutex of the parker */
bit should_park = 0;
byte qlock = 0;        /* the queue (bucket) lock */
bit queued = 0;
byte unparks = 0;
byte returns = 0;
bit finished = 0;

active proctype Waiter() {
	bit cwr;
	bit r;
	bit timedout;
	/* round 1: park */
	mutex_lock(qlock);
	should_park = 1; queued = 1;    /* prepare_park + enqueue */
	mutex_unlock(qlock);
	mutex_lock(m);
	do
	:: should_park -> cond_wait(m)
	:: else -> break
	od;
	mutex_unlock(m);
	returns++;
	assert(returns <= unparks);

	/* round 2: park_until, may time out */
	mutex_lock(qlock);
	should_park = 1; queued = 1;
	mutex_unlock(qlock);
	timedout = 0;
	mutex_lock(m);
	do
	:: should_park ->
		if
		:: tos < MAXTO -> tos++; timedout = 1; break   /* deadline already passed */
		:: true -> cond_timedwait(m, r);
			if
			:: r -> timedout = 1; break     /* woke at the deadline */
			:: else -> skip
			fi
		fi
	:: else -> break
	od;
	mutex_unlock(m);
	if
	:: timedout ->
		mutex_lock(qlock);
		mutex_lock(m); r = should_park; mutex_unlock(m);   /* timed_out() */
		if
		:: r -> queued = 0;                 /* really timed out: unlink itself */
			mutex_unlock(qlock)
		:: else -> mutex_unlock(qlock);     /* late unpark: treat as unparked */
			returns++; assert(returns <= unparks)
		fi
	:: else -> returns++; assert(returns <= unparks)
	fi;
	finished = 1
}

active proctype Waker() {
	byte round = 0;
	bit got;
	do
	:: round < 2 ->
		(queued || finished);                   /* block until there is someone to unpark */
		if
		:: finished -> break
		:: else -> skip
		fi;
		mutex_lock(qlock);
		if
		:: queued -> queued = 0; got = 1;
#ifndef BUG_PTHREAD_NO_MUTEX
			mutex_lock(m);              /* unpark_lock */
#endif
			unparks++
		:: else -> got = 0
		fi;
		mutex_unlock(qlock);
		if
		:: got ->
			should_park = 0;            /* unpark */
			cond_signal();
#ifndef BUG_PTHREAD_NO_MUTEX
			mutex_unlock(m);
#endif
			round++
		:: else -> skip                     /* it timed out and left the queue */
		fi
	:: else -> break
	od
}

#ifdef LTL
ltl live { <> finished }
#endif
