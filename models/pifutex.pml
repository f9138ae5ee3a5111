/*
 * pifutex.pml: the priority-inheriting mutex on FUTEX_LOCK_PI /
 * FUTEX_UNLOCK_PI (internal/futexsync/pi_linux.go, PIMutex), with the
 * kernel's two operations as the atomic steps they are under the futex
 * hash-bucket lock (torvalds/linux kernel/futex/pi.c at 16df04446e34:
 * futex_lock_pi_atomic and futex_lock_pi; futex_unlock_pi and
 * wake_futex_pi).
 *
 * Why one step each: futex_lock_pi reads the word, sets FUTEX_WAITERS
 * (futex_lock_pi_atomic's cmpxchg, retried on -EAGAIN if user space changed
 * the word) and queues the futex_q, all under hb->lock; it takes the
 * rt_mutex's wait_lock before dropping hb->lock, and futex_unlock_pi takes
 * hb->lock and then wait_lock, so an unlock that follows the waiter's
 * FUTEX_WAITERS always finds its rt_waiter ("this forces
 * __rt_mutex_start_proxy() to complete such that we're guaranteed to
 * observe the rt_waiter"). Not modelled: FUTEX_OWNER_DIED (robust
 * futexes), timeouts and signals (PIMutex uses neither: the kernel
 * restarts an interrupted FUTEX_LOCK_PI), lock stealing on the rt_mutex
 * (a fixup between waiters, invisible to the word's protocol here).
 *
 *   word: 0 free, else the owner's TID, | WAITERS while the kernel has a
 *         waiter queued (Documentation/locking/pi-futex.rst)
 *   Lock (user):    CAS(word, 0, TID), else FUTEX_LOCK_PI
 *   FUTEX_LOCK_PI (kernel, one step under hb->lock):
 *       a waiter queued       -> attach to it: queue the caller (the word has
 *                                WAITERS: the kernel set it for the first one)
 *       TID part of word == 0 -> word = TID: the caller owns it, no sleep
 *       else                  -> word |= WAITERS, queue the caller
 *     then the caller sleeps on the rt_mutex until FUTEX_UNLOCK_PI hands it
 *     the lock (the priority boost is what the rt_mutex adds; it does not
 *     change the word's protocol, so it is not modelled).
 *   Unlock (user):  UnlockTID: CAS(word, TID, 0)  (glibc's PI unlock)
 *                   Unlock (-DUNLOCK_LOAD): s = load; if s & WAITERS == 0,
 *                   CAS(word, s, 0): two steps, the kernel may set WAITERS
 *                   between them (the CAS then fails)
 *                   on failure FUTEX_UNLOCK_PI
 *   FUTEX_UNLOCK_PI (kernel, one step under hb->lock; EPERM if the TID part
 *     is not the caller's, asserted here):
 *       a waiter queued -> word = WAITERS | its TID ("the WAITERS bit is
 *                          always kept enabled while there is PI state
 *                          around"), dequeue it, it owns the lock and wakes
 *       none            -> word = 0
 *   The top waiter is the highest-priority one; priorities are left free
 *   here (any queued waiter may be chosen), which covers every order.
 *
 * N threads take the lock ROUNDS times each.
 *
 * Checked: mutual exclusion (at most one thread in the critical section,
 * and it is the TID in the word); the word's TID part is 0 or a thread;
 * WAITERS is set whenever a waiter is queued; no invalid end state (a
 * thread asleep in FUTEX_LOCK_PI for ever when every other thread is done
 * is a lost wakeup); LTL <> (finished == N) under weak fairness.
 *
 * -DNO_WORD_CHECK leaves the word's invariants out, so that a bug variant
 * shows it is caught by the lost wakeup itself (invalid end state,
 * <> finished), not only by the invariant that predicts it.
 *
 * BUG_PI_PLAIN_UNLOCK: unlock is a plain store of 0, ignoring WAITERS: the
 *   queued waiter is never handed the lock and sleeps for ever.
 * BUG_PI_UNLOCK_IGNORES_WAITERS: the fast-path unlock compares the TID part
 *   only (CAS(word, word, 0) when word & TID_MASK == TID): with WAITERS set
 *   it succeeds in user space and the kernel never hears of the unlock.
 * BUG_PI_NONATOMIC_FASTPATH: the fast path reads 0 and then stores its TID
 *   (no CAS): two threads both see 0 and both enter (mutual exclusion).
 * BUG_PI_KERNEL_SPLIT: FUTEX_LOCK_PI sets WAITERS and queues the caller in
 *   two steps (the bucket lock dropped between them): an owner's unlock in
 *   between finds no waiter, stores 0, and the waiter then sleeps on a
 *   free lock.
 */
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef N
#define N 3
#endif
#define MAXN 4                 /* kernel_unlock_pi's choice is written out for 4 */

#define WAITERS 8
#define TIDMASK 7

byte word = 0;
bit queued[MAXN];              /* asleep on the rt_mutex in FUTEX_LOCK_PI */
bit granted[MAXN];             /* FUTEX_UNLOCK_PI handed it the lock */
byte nqueued = 0;
byte incs = 0;                 /* threads in the critical section */
byte finished = 0;

/* TIDs are 1..N (0 is "free") */
#define TID(i) ((i) + 1)

/* the word's invariants, checked after every step that writes it: its TID
 * part is 0 or a thread's; while the kernel has a waiter queued the word
 * has an owner and WAITERS (so the owner's unlock CAS fails and it enters
 * the kernel, which finds the waiter) */
inline check() {
#ifndef NO_WORD_CHECK
	assert((word & TIDMASK) <= N);
	assert(nqueued == 0 || ((word & WAITERS) != 0 && (word & TIDMASK) != 0))
#else
	skip
#endif
}

/* FUTEX_LOCK_PI for thread me: returns with me owning the word. */
inline kernel_lock_pi(me) {
#ifdef BUG_PI_KERNEL_SPLIT
	atomic {
		if
		:: nqueued > 0 || (word & TIDMASK) != 0 ->
			word = word | WAITERS; took = 0
		:: else ->
			word = TID(me); took = 1
		fi
	}
	if
	:: !took -> atomic { queued[me] = 1; nqueued++; check() }
	:: else -> skip
	fi;
#else
	atomic {
		if
		:: nqueued > 0 ->
			assert(word & WAITERS);
			queued[me] = 1; nqueued++; took = 0
		:: nqueued == 0 && (word & TIDMASK) == 0 ->
			word = TID(me); took = 1
		:: else ->
			word = word | WAITERS;
			queued[me] = 1; nqueued++; took = 0
		fi;
		check()
	}
#endif
	if
	:: !took ->
		atomic { granted[me] -> granted[me] = 0 };
		assert((word & TIDMASK) == TID(me))
	:: else -> skip
	fi
}

/* FUTEX_UNLOCK_PI by thread me. */
inline kernel_unlock_pi(me) {
	atomic {
		assert((word & TIDMASK) == TID(me));   /* else EPERM */
		if
		:: nqueued > 0 ->
			/* the top waiter: any queued thread */
			if
			:: queued[0] -> w = 0
			:: queued[1] -> w = 1
			:: queued[2] -> w = 2
			:: queued[3] -> w = 3
			fi;
			queued[w] = 0; nqueued--;
			word = WAITERS | TID(w);
			granted[w] = 1
		:: else ->
			word = 0
		fi;
		check()
	}
}

proctype Thread(byte me) {
	byte round = 0;
	byte s;
	byte w;
	bit took;
	bit done;
	do
	:: round < ROUNDS ->
		/* Lock: the user-space fast path, then the kernel */
#ifdef BUG_PI_NONATOMIC_FASTPATH
		s = word;
		if
		:: s == 0 -> word = TID(me); took = 1
		:: else -> took = 0
		fi;
#else
		atomic {
			if
			:: word == 0 -> word = TID(me); took = 1
			:: else -> took = 0
			fi
		};
#endif
		if
		:: !took -> kernel_lock_pi(me)
		:: else -> skip
		fi;

		/* critical section */
		incs++;
		assert(incs == 1);
		assert((word & TIDMASK) == TID(me));
		incs--;

		/* Unlock */
#if defined(BUG_PI_PLAIN_UNLOCK)
		atomic { word = 0; check() };
#elif defined(BUG_PI_UNLOCK_IGNORES_WAITERS)
		s = word;
		atomic {
			if
			:: (s & TIDMASK) == TID(me) && word == s -> word = 0; done = 1
			:: else -> done = 0
			fi;
			check()
		};
		if
		:: !done -> kernel_unlock_pi(me)
		:: else -> skip
		fi;
#elif defined(UNLOCK_LOAD)
		s = word;                            /* Unlock: load, then CAS */
		if
		:: (s & WAITERS) == 0 ->
			atomic {
				if
				:: word == s -> word = 0; done = 1
				:: else -> done = 0
				fi
			}
		:: else -> done = 0
		fi;
		if
		:: !done -> kernel_unlock_pi(me)
		:: else -> skip
		fi;
#else
		atomic {                             /* UnlockTID: CAS(TID, 0) */
			if
			:: word == TID(me) -> word = 0; done = 1
			:: else -> done = 0
			fi
		};
		if
		:: !done -> kernel_unlock_pi(me)
		:: else -> skip
		fi;
#endif
		round++
	:: else -> break
	od;
	finished++
}

init {
	assert(N >= 1 && N <= MAXN);
	atomic {
		byte i = 0;
		do
		:: i < N -> run Thread(i); i++
		:: else -> break
		od
	}
}

#ifdef LTL
ltl live { <> (finished == N) }
#endif
