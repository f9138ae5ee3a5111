/*
 * futex.pml: the parking_lot_core Linux thread parker (thread_parker/linux.rs),
 * as ported in internal/parkers (backend "futex").
 *
 *   prepare_park: futex = 1            (owner, before it is queued)
 *   park:         while futex != 0 { futex_wait(&futex, 1) }
 *   unpark_lock:  futex = 0            (waker, under the queue lock)
 *   unpark:       futex_wake(&futex)   (waker, after the queue lock)
 *
 * The queue is abstracted to one flag: the waiter publishes itself after
 * prepare_park (as the lot does under the bucket lock) and the waker only
 * unparks a published thread. ROUNDS park/unpark cycles reuse the parker, so
 * a late futex_wake of one round can hit the sleep of the next round.
 *
 * Checked: (1) no invalid end state: the waiter never stays blocked after
 * being unparked (a lost wakeup is a deadlock here); (2) park never returns
 * before unpark_lock (no spurious return); (3) LTL <> finished under weak
 * fairness.
 *
 * BUG_FUTEX_CHECK_THEN_SLEEP: futex_wait compares in user space and then
 * sleeps, so an unpark between the compare and the sleep is lost.
 */
#include "prims.pml"

#ifndef ROUNDS
#define ROUNDS 2
#endif

byte futex = 0;
bit queued = 0;        /* the waiter is in the (abstract) queue */
byte unparks = 0;      /* unpark_lock calls */
byte returns = 0;      /* park returns */
bit finished = 0;

active proctype Waiter() {
	bit fwr;
	byte round = 0;
	do
	:: round < ROUNDS ->
		atomic { futex = 1; queued = 1 }  /* prepare_park + enqueue under the queue lock */
		do
		:: futex != 0 -> futex_wait(futex, 1)
		:: else -> break
		od;
		returns++;
		assert(returns <= unparks);        /* Park never returns spuriously */
		round++
	:: else -> break
	od;
	finished = 1
}

active proctype Waker() {
	byte round = 0;
	do
	:: round < ROUNDS ->
		atomic { queued == 1 -> queued = 0; futex = 0; unparks++ }  /* dequeue + unpark_lock, under the queue lock */
		futex_wake();                                            /* unpark, after the queue lock */
		round++
	:: else -> break
	od
}

#ifdef LTL
ltl live { <> finished }
#endif
