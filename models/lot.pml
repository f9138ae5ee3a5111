/*
 * lot.pml: the park / unpark handshake of the parking lot
 * (parking_lot_core parking_lot.rs park and unpark_one), as ported in
 * internal/lot, over the futex thread parker (futex.pml).
 *
 * The user protocol is the one every lot client follows (RawMutex, Condvar,
 * a semaphore): the waiter loops "while !flag { park(key, validate: !flag) }",
 * the waker sets flag and calls unpark_one(key).
 *
 *   park(key, validate, timeout):
 *     lock(bucket)
 *     if !validate() { unlock(bucket); return Invalid }
 *     enqueue(self); prepare_park()                  (futex = 1)
 *     unlock(bucket)
 *     before_sleep()
 *     if park_until(deadline) return Unparked        (while futex != 0 futex_wait(1, timeout))
 *     lock(bucket)
 *     if !timed_out() { unlock; return Unparked }    (futex == 0: a late unpark)
 *     unlink(self); timed_out(key, was_last); unlock(bucket); return TimedOut
 *   unpark_one(key):
 *     lock(bucket); if queued { dequeue; h = unpark_lock() (futex = 0) }; unlock(bucket)
 *     if h { h.unpark() (futex_wake) }
 *
 * Checked: no invalid end state (a waiter left asleep after the unpark is a
 * deadlock); the waker never unparks a thread that already returned from
 * park; a thread the waker dequeued never returns TimedOut (the late-unpark
 * check) and every Unparked return was a dequeue by the waker; the queue is
 * empty when park returns; LTL <> finished (weak fairness).
 *
 * Bug variants:
 *  BUG_LOT_VALIDATE_OUTSIDE      validate() runs before the bucket lock is taken
 *  BUG_LOT_PREPARE_AFTER_UNLOCK  prepare_park() after the bucket is unlocked
 *  BUG_LOT_WAKE_BEFORE_MARK      the waker wakes (futex_wake) before unpark_lock marks
 *  BUG_LOT_NO_LATE_UNPARK_CHECK  after a timeout, park returns TimedOut without timed_out()
 */
#ifndef MAXTO
#define MAXTO 2          /* timeouts per run; MAXTO=0 models an untimed park */
#endif
#include "prims.pml"

byte bucket = 0;       /* the bucket WordLock */
bit inq = 0;           /* the waiter is queued under the key */
byte futex = 0;        /* the thread parker of the waiter */
bit flag = 0;          /* the condition the waiter waits for */
bit inpark = 0;        /* the waiter is inside park() */
bit dequeued = 0;      /* the waker dequeued the waiter during this park() */
byte unparked = 0;     /* Unparked results */
bit finished = 0;

active proctype Waiter() {
	bit fwr;
	bit r;
	bit valid;
	bit timedout;
	do
	:: flag -> break
	:: else ->
		inpark = 1;
#ifdef BUG_LOT_VALIDATE_OUTSIDE
		valid = !flag;
		mutex_lock(bucket);
#else
		mutex_lock(bucket);
		valid = !flag;
#endif
		if
		:: !valid -> mutex_unlock(bucket)       /* Invalid */
		:: else ->
			inq = 1;
#ifndef BUG_LOT_PREPARE_AFTER_UNLOCK
			futex = 1;
#endif
			mutex_unlock(bucket);
#ifdef BUG_LOT_PREPARE_AFTER_UNLOCK
			futex = 1;
#endif
			/* park_until */
			timedout = 0;
			do
			:: futex != 0 ->
				futex_wait_timed(futex, 1, r);
				if
				:: r -> timedout = 1; break
				:: else -> skip
				fi
			:: else -> break
			od;
			if
			:: !timedout -> skip             /* Unparked */
			:: else ->
				mutex_lock(bucket);
#ifdef BUG_LOT_NO_LATE_UNPARK_CHECK
				inq = 0;
				mutex_unlock(bucket);
				assert(!dequeued)              /* a dequeued thread must not time out */
#else
				if
				:: futex != 0 ->               /* timed_out(): really timed out */
					assert(!dequeued);
					inq = 0;                   /* unlink itself */
					mutex_unlock(bucket)
				:: else ->                     /* late unpark */
					mutex_unlock(bucket);
					timedout = 0
				fi
#endif
			fi;
			if
			:: !timedout -> assert(dequeued); unparked++
			:: else -> skip
			fi
		fi;
		assert(!inq);                            /* never left queued after park() */
		atomic { inpark = 0; dequeued = 0 }
	od;
	finished = 1
}

active proctype Waker() {
	bit h = 0;
	flag = 1;
	mutex_lock(bucket);
	if
	:: inq ->
		assert(inpark);                /* only a thread inside park() is queued */
		inq = 0;
		dequeued = 1;
#ifndef BUG_LOT_WAKE_BEFORE_MARK
		futex = 0;                     /* unpark_lock */
#endif
		h = 1
	:: else -> skip
	fi;
	mutex_unlock(bucket);
	if
	:: h ->
		futex_wake();                  /* handle.unpark() */
#ifdef BUG_LOT_WAKE_BEFORE_MARK
		futex = 0
#endif
	:: else -> skip
	fi
}

#ifdef LTL
ltl live { <> finished }
#endif
