/*
 * stdfutex.pml: the Rust std futex thread parker
 * (library/std/src/sys/sync/thread_parking/futex.rs), as ported in
 * internal/parkers (backend "std").
 *
 *   state: PARKED=-1, EMPTY=0, NOTIFIED=1
 *   park:         if fetch_sub(state, 1) == NOTIFIED return     // NOTIFIED->EMPTY or EMPTY->PARKED
 *                 loop { futex_wait(&state, PARKED); if CAS(state, NOTIFIED, EMPTY) return }
 *   park_timeout: if fetch_sub(state, 1) == NOTIFIED return true
 *                 futex_wait_timeout(&state, PARKED, d)
 *                 return swap(state, EMPTY) == NOTIFIED          // false: timeout *or* spurious
 *   unpark:       if swap(state, NOTIFIED) == PARKED { futex_wake(&state) }
 *
 * Rounds as in crossbeam.pml: the waiter parks until it holds ROUNDS tokens
 * (park in odd rounds, park_timeout in even rounds, re-parking after a
 * return without a token); the waker unparks once per round.
 *
 * Checked: no invalid end state; every token-return consumed a distinct
 * unpark; state stays in {PARKED, EMPTY, NOTIFIED}; LTL <> finished.
 *
 * BUG_FUTEX_CHECK_THEN_SLEEP: futex_wait is a user-space check then a sleep.
 * BUG_STD_NONATOMIC_SWAP: unpark reads the state and then stores NOTIFIED in
 * two steps: a park that moves EMPTY->PARKED and sleeps in between is never
 * woken.
 */
#include "prims.pml"

#ifndef ROUNDS
#define ROUNDS 2
#endif

#define PARKED (-1)
#define EMPTY 0
#define NOTIFIED 1

short state = EMPTY;
byte unparks = 0;
byte tokens = 0;
bit finished = 0;

active proctype Waiter() {
	bit fwr;
	bit r;
	bit timed;
	bit got;
	short old;
	byte round = 0;
	do
	:: round < ROUNDS ->
		timed = round % 2;
		got = 0;
		atomic { old = state; state = state - 1 };
		assert(old == EMPTY || old == NOTIFIED);
		if
		:: old == NOTIFIED -> got = 1
		:: else ->
			if
			:: !timed ->
				do
				:: futex_wait(state, PARKED);
					if
					:: atomic { state == NOTIFIED -> state = EMPTY; got = 1 }
					:: atomic { else -> skip }
					fi;
					if
					:: got -> break
					:: else -> skip
					fi
				od
			:: timed ->
				futex_wait_timed(state, PARKED, r);
				atomic { old = state; state = EMPTY };
				assert(old == PARKED || old == NOTIFIED);
				got = (old == NOTIFIED)
			fi
		fi;
		if
		:: got -> tokens++; assert(tokens <= unparks); round++
		:: else -> skip                          /* timeout or spurious: park again */
		fi
	:: else -> break
	od;
	finished = 1
}

active proctype Waker() {
	byte round = 0;
	short old;
	do
	:: round < ROUNDS ->
#ifdef BUG_STD_NONATOMIC_SWAP
		atomic { unparks++; old = state };
		state = NOTIFIED;
#else
		atomic { unparks++; old = state; state = NOTIFIED };
#endif
		assert(old == PARKED || old == EMPTY || old == NOTIFIED);
		if
		:: old == PARKED -> futex_wake()
		:: else -> skip
		fi;
		tokens > round;
		round++
	:: else -> break
	od
}

#ifdef LTL
ltl live { <> finished }
#endif
