/*
 * condvar.pml: parking_lot Condvar (src/condvar.rs) with RawMutex, both over
 * the parking lot, as ported in internal/lot (Condvar, Mutex): wait parks on
 * the condvar with before_sleep = mutex.unlock; notify_one requeues the
 * waiter onto the mutex (RequeueOne) if the mutex is locked, marking it
 * PARKED, else unparks it (UnparkOne).
 *
 * Two threads share one bucket (both keys hash to it: one lock, one FIFO
 * queue of (thread, key) entries, a legal case of lock_bucket_pair):
 *   waiter:   lock(m); while !cond { cv.wait(m) }; unlock(m)
 *   notifier: lock(m); cond = 1; [unlock(m)]; cv.notify_one(); [unlock(m)]
 * (notify with the mutex held, or after unlocking it: a free choice).
 * The mutex is RawMutex without the fair hand-off (be_fair = false).
 *
 * Checked: mutual exclusion on m, the waiter holds m after wait, no invalid
 * end state (the waiter asleep on the condvar or on the mutex for ever is a
 * lost wakeup), LTL <> finished.
 *
 * BUG_CONDVAR_UNLOCK_BEFORE_PARK: wait unlocks the mutex before park instead
 *   of in before_sleep (after queueing): a notify in between finds nobody.
 * BUG_CONDVAR_REQUEUE_NO_PARKED: notify_one requeues onto the mutex without
 *   setting PARKED (mark_parked_if_locked): the unlock takes the fast path and
 *   never wakes the requeued waiter.
 */
#ifndef MAXSPUR
#define MAXSPUR 1
#endif

#define N 2
#define KCV 1
#define KM 2
#define LOCKED 1
#define PARKED 2

byte mstate = 0;               /* RawMutex state */
byte cvstate = 0;              /* Condvar state: 0 none, KM = our mutex */
bit cond = 0;
byte bucket = 0;
byte qt[N];                    /* queue: thread id + 1 */
byte qk[N];                    /* queue: key */
byte qlen = 0;
byte futex[N];
bit fq[N];
byte spur = 0;
byte holder = 0;               /* thread id + 1 holding m (for the asserts) */
byte finished = 0;

inline lock_bucket() { atomic { bucket == 0 -> bucket = _pid + 1 } }
inline unlock_bucket() { assert(bucket == _pid + 1); bucket = 0 }

inline enqueue(t, k) { qt[qlen] = t + 1; qk[qlen] = k; qlen++ }

/* remove entry i from the queue */
inline remove_at(i) {
	do
	:: i + 1 < qlen -> qt[i] = qt[i + 1]; qk[i] = qk[i + 1]; i++
	:: else -> break
	od;
	qlen--; qt[qlen] = 0; qk[qlen] = 0
}

/* find the first entry with key k: i = index, or i = qlen */
inline find(k, i) {
	i = 0;
	do
	:: i < qlen && qk[i] != k -> i++
	:: else -> break
	od
}

/* count entries with key k */
inline count(k, c) {
	c = 0; j = 0;
	do
	:: j < qlen -> if :: qk[j] == k -> c++ :: else -> skip fi; j++
	:: else -> break
	od
}

/* sleep until unparked (futex parker, no timeout) */
inline sleep(me) {
	do
	:: futex[me] == 0 -> break
	:: futex[me] != 0 ->
		atomic { if :: futex[me] == 1 -> fq[me] = 1 :: else -> skip fi }
		atomic {
			if
			:: fq[me] == 0 -> skip
			:: fq[me] == 1 && spur < MAXSPUR -> spur++; fq[me] = 0
			fi
		}
	od
}

inline wake(t) { atomic { if :: fq[t] == 1 -> fq[t] = 0 :: else -> skip fi } }

inline mutex_lock(me) {
	got = 0;
	atomic { if :: mstate == 0 -> mstate = LOCKED; got = 1 :: else -> skip fi }
	do
	:: got -> break
	:: !got ->
		s = mstate;
		if
		:: (s & LOCKED) == 0 ->
			atomic { if :: mstate == s -> mstate = s | LOCKED; got = 1 :: else -> skip fi }
		:: else ->
			if
			:: (s & PARKED) == 0 ->
				atomic { if :: mstate == s -> mstate = s | PARKED :: else -> s = 255 fi }
			:: else -> skip
			fi;
			if
			:: s == 255 -> skip
			:: else ->
				lock_bucket();
				if
				:: mstate != (LOCKED | PARKED) -> unlock_bucket()
				:: else ->
					enqueue(me, KM); futex[me] = 1;
					unlock_bucket();
					sleep(me)                 /* no timeout: Unparked, retry */
				fi
			fi
		fi
	od;
	assert(holder == 0);
	holder = me + 1
}

inline mutex_unlock(me) {
	assert(holder == me + 1);
	holder = 0;
	got = 0;
	atomic { if :: mstate == LOCKED -> mstate = 0; got = 1 :: else -> skip fi }
	if
	:: !got ->
		/* unlock_slow: unpark_one(m), be_fair false */
		lock_bucket();
		find(KM, i);
		if
		:: i < qlen ->
			t = qt[i] - 1;
			remove_at(i);
			count(KM, c);
			if :: c > 0 -> mstate = PARKED :: else -> mstate = 0 fi;
			futex[t] = 0;
			unlock_bucket();
			wake(t)
		:: else ->
			mstate = 0;
			unlock_bucket()
		fi
	:: else -> skip
	fi
}

active proctype Waiter() {
	byte me = 0;
	bit got;
	byte s, i, j, c, t;
	mutex_lock(me);
	do
	:: cond -> break
	:: !cond ->
		/* cv.wait(m): park(cv, validate, before_sleep = m.unlock) */
#ifdef BUG_CONDVAR_UNLOCK_BEFORE_PARK
		mutex_unlock(me);
#endif
		lock_bucket();
		if
		:: cvstate == 0 -> cvstate = KM
		:: else -> assert(cvstate == KM)
		fi;
		enqueue(me, KCV); futex[me] = 1;
		unlock_bucket();
#ifndef BUG_CONDVAR_UNLOCK_BEFORE_PARK
		mutex_unlock(me);                 /* before_sleep */
#endif
		sleep(me);
		mutex_lock(me)                    /* no hand-off without be_fair: relock */
	od;
	assert(holder == me + 1);
	mutex_unlock(me);
	finished++
}

active proctype Notifier() {
	byte me = 1;
	bit got, held;
	byte s, i, j, c, t;
	mutex_lock(me);
	cond = 1;
	held = 1;
	if
	:: true -> mutex_unlock(me); held = 0     /* notify after unlocking */
	:: true -> skip                            /* notify with the mutex held */
	fi;
	/* cv.notify_one() */
	if
	:: cvstate == 0 -> skip                   /* fast path: nobody waits */
	:: else ->
		lock_bucket();
		if
		:: cvstate != KM -> unlock_bucket()   /* Abort */
		:: else ->
			find(KCV, i);
			/* mark_parked_if_locked decides RequeueOne vs UnparkOne */
			got = 0;
#ifdef BUG_CONDVAR_REQUEUE_NO_PARKED
			atomic { if :: (mstate & LOCKED) != 0 -> got = 1 :: else -> skip fi };
#else
			atomic { if :: (mstate & LOCKED) != 0 -> mstate = mstate | PARKED; got = 1 :: else -> skip fi };
#endif
			if
			:: i < qlen ->
				t = qt[i] - 1;
				if
				:: got -> qk[i] = KM          /* RequeueOne: onto the mutex queue */
				:: else -> remove_at(i)       /* UnparkOne */
				fi;
				count(KCV, c);
				if :: c == 0 -> cvstate = 0 :: else -> skip fi;
				if
				:: !got -> futex[t] = 0; unlock_bucket(); wake(t)
				:: got -> unlock_bucket()
				fi
			:: else -> cvstate = 0; unlock_bucket()
			fi
		fi
	fi;
	if
	:: held -> mutex_unlock(me)
	:: else -> skip
	fi;
	finished++
}

#ifdef LTL
ltl live { <> (finished == N) }
#endif
