/*
 * pingpong.pml: the latency experiment's ping-pong over the pthread thread
 * parker (internal/pingpong/mech.go parkerMech, backend
 * "pthread"), with the one weak-memory effect that matters to it modelled
 * explicitly: x86-TSO's store buffer.
 *
 *   wait(me):   while !flag[me] { prepare_park; if !flag[me] { park } }; flag[me] = 0
 *   send(peer): flag[peer] = 1; unpark_lock; unpark        (unconditionally)
 *   prepare_park: should_park = 1           park: lock; while should_park { cond_wait }; unlock
 *   unpark_lock: lock(m)                    unpark: should_park = 0; signal; unlock
 *
 * There is no queue lock: the flag is the only thing the two sides share
 * besides the parkers. Side 0 starts each of ROUNDS round trips, side 1
 * answers.
 *
 * spin runs every statement in one global order (sequential consistency),
 * so a plain store would be visible at once and the model could not see
 * issue 11's lost wakeup. BUG_PLAIN_PREPARE models the plain store as TSO
 * executes it: prepare_park's 1 goes into the thread's store buffer
 * (pend[me]), the flag load that follows reads memory past it, and the
 * buffer drains at some later step, at the latest at the next locked
 * instruction (the mutex lock in park). Without the define the store is
 * sequentially consistent (Go's atomic.StoreInt32, an XCHG), visible before
 * the load, which is the fix.
 *
 * Checked: no invalid end state (both sides asleep = the lost wakeup),
 * LTL <> finished. Every other store here is atomic or under a mutex in
 * the code, so it is modelled as visible at once.
 */
#include "prims.pml"

#ifndef ROUNDS
#define ROUNDS 2
#endif

bit flag[2];
bit sp[2];              /* should_park of each side's parker */
bit pend[2];            /* BUG_PLAIN_PREPARE: a 1 for sp[me] still in the store buffer */
byte pm[2];             /* each parker's mutex */
bit cv[2];              /* each parker's condvar queue: its owner is waiting */
byte done = 0;
bit finished = 0;

inline drain(me) {
	atomic { if :: pend[me] -> sp[me] = 1; pend[me] = 0 :: else -> skip fi }
}

inline park(me) {
	drain(me);              /* the lock is a locked instruction: the buffer drains */
	mutex_lock(pm[me]);
	do
	:: sp[me] ->
		atomic { mutex_unlock(pm[me]); cv[me] = 1 };   /* cond_wait: unlock and queue */
		atomic {
			if
			:: cv[me] == 0 -> skip
			:: cv[me] == 1 && spur < MAXSPUR -> spur++; cv[me] = 0
			fi
		};
		mutex_lock(pm[me])
	:: else -> break
	od;
	mutex_unlock(pm[me])
}

inline wait(me) {
	do
	:: flag[me] -> break
	:: else ->
#ifdef BUG_PLAIN_PREPARE
		pend[me] = 1;   /* prepare_park: into the store buffer */
#else
		sp[me] = 1;     /* prepare_park: sequentially consistent */
#endif
		if
		:: flag[me] -> drain(me)        /* the load reads memory, not the buffer */
		:: else -> park(me)
		fi
	od;
	flag[me] = 0
}

inline send(peer) {
	flag[peer] = 1;                 /* an atomic store: it drains the buffer too */
	drain(_pid);
	mutex_lock(pm[peer]);           /* unpark_lock */
	sp[peer] = 0;                   /* unpark */
	atomic { if :: cv[peer] -> cv[peer] = 0 :: else -> skip fi };   /* signal */
	mutex_unlock(pm[peer])
}

active [2] proctype Side() {
	byte i = 0;
	do
	:: i < ROUNDS ->
		if
		:: _pid == 0 -> send(1); wait(0)
		:: else -> wait(1); send(0)
		fi;
		i++
	:: else -> break
	od;
	atomic { done++; if :: done == 2 -> finished = 1 :: else -> skip fi }
}

#ifdef LTL
ltl live { <> finished }
#endif
