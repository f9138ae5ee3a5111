/*
 * crossbeam.pml: the crossbeam-utils Parker (sync/parker.rs, Inner::park and
 * Inner::unpark), as ported in internal/parkers (backend "crossbeam").
 *
 *   state: EMPTY=0, PARKED=1, NOTIFIED=2; a mutex m and a condvar.
 *   park(deadline):
 *     if CAS(state, NOTIFIED, EMPTY) return Unparked
 *     if deadline passed return Timeout
 *     lock(m)
 *     if !CAS(state, EMPTY, PARKED) { swap(state, EMPTY) (it was NOTIFIED); unlock; return Unparked }
 *     loop {
 *       untimed: cond_wait(m)
 *       timed:   if now < deadline { cond_timedwait(m) } else { s = swap(state, EMPTY); unlock
 *                                                            return s == NOTIFIED ? Unparked : Timeout }
 *       if CAS(state, NOTIFIED, EMPTY) { unlock; return Unparked }   // else spurious: loop
 *     }
 *   unpark:
 *     if swap(state, NOTIFIED) == PARKED { lock(m); unlock(m); notify_one() }
 *
 * The waiter parks until it gets ROUNDS tokens (untimed park in odd rounds,
 * park with a deadline in even rounds: a Timeout makes it park again); the
 * waker unparks once per round and waits for the token of that round to be
 * consumed. Either side may go first, so unpark-before-park is covered.
 *
 * Checked: no invalid end state (lost wakeup = deadlock); every Unparked
 * return consumed a distinct unpark (no spurious return, tokens do not
 * accumulate); the state never leaves {EMPTY, PARKED, NOTIFIED}; LTL <> finished.
 *
 * BUG_CROSSBEAM_NO_LOCK: unpark calls notify_one without taking and dropping
 * the lock first. The waiter may have stored PARKED but not yet entered
 * cond_wait; the notify is then lost.
 */
#include "prims.pml"

#ifndef ROUNDS
#define ROUNDS 2
#endif

#define EMPTY 0
#define PARKED 1
#define NOTIFIED 2

byte state = EMPTY;
byte m = 0;
byte unparks = 0;      /* unpark calls started */
byte tokens = 0;       /* park returns with Unparked */
bit finished = 0;

active proctype Waiter() {
	bit cwr;
	bit r;
	bit timed;
	bit expired;
	bit got;
	byte s;
	byte round = 0;
	do
	:: round < ROUNDS ->
		timed = round % 2;
		expired = 0;
		got = 0;
		if
		:: atomic { state == NOTIFIED -> state = EMPTY; got = 1 }
		:: atomic { else -> skip }
		fi;
		if
		:: got -> goto ret
		:: else -> skip
		fi;
		if
		:: timed && tos < MAXTO -> tos++; goto ret    /* deadline already passed: Timeout */
		:: true -> skip
		fi;
		mutex_lock(m);
		if
		:: atomic { state == EMPTY -> state = PARKED }
		:: atomic { state == NOTIFIED -> state = EMPTY; got = 1 }
		:: atomic { state == PARKED -> assert(false) }  /* "inconsistent park_timeout state" */
		fi;
		if
		:: got -> mutex_unlock(m); goto ret
		:: else -> skip
		fi;
		do
		:: true ->
			if
			:: !timed -> cond_wait(m)
			:: timed && !expired -> cond_timedwait(m, r);
				if
				:: r -> expired = 1
				:: else -> skip
				fi
			:: timed && expired ->
				atomic { s = state; state = EMPTY };
				assert(s == NOTIFIED || s == PARKED);
				got = (s == NOTIFIED);
				mutex_unlock(m);
				break
			fi;
			if
			:: atomic { state == NOTIFIED -> state = EMPTY; got = 1 }
			:: atomic { else -> skip }
			fi;
			if
			:: got -> mutex_unlock(m); break
			:: else -> skip                   /* spurious wakeup: loop */
			fi
		od;
ret:
		if
		:: got -> tokens++; assert(tokens <= unparks); round++
		:: else -> skip                           /* Timeout: park again */
		fi
	:: else -> break
	od;
	finished = 1
}

active proctype Waker() {
	byte round = 0;
	byte old;
	do
	:: round < ROUNDS ->
		atomic { unparks++; old = state; state = NOTIFIED };
		assert(old == EMPTY || old == PARKED || old == NOTIFIED);
		if
		:: old == PARKED ->
#ifndef BUG_CROSSBEAM_NO_LOCK
			mutex_lock(m);
			mutex_unlock(m);
#endif
			cond_signal()
		:: else -> skip
		fi;
		tokens > round;                 /* the token of this round was consumed */
		round++
	:: else -> break
	od
}

#ifdef LTL
ltl live { <> finished }
#endif
