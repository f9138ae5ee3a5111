/*
 * rawmutex.pml: parking_lot RawMutex (src/raw_mutex.rs) over the parking lot
 * (park / unpark_one with callbacks, bucket lock, FIFO queue, per-thread
 * futex parkers), as ported in internal/lot (Mutex).
 *
 *   state: LOCKED=1, PARKED=2
 *   lock:   CAS(0, LOCKED) else lock_slow
 *   lock_slow(timed):
 *     loop {
 *       s = state
 *       if !(s & LOCKED) { if CAS(s, s|LOCKED) return true; continue }
 *       if !(s & PARKED) { if !CAS(s, s|PARKED) continue }
 *       park(m, validate: state == LOCKED|PARKED,
 *               timed_out(was_last): if was_last { state &= ~PARKED })
 *         Unparked(HANDOFF) -> return true     (the lock was handed to us)
 *         Unparked / Invalid -> continue
 *         TimedOut -> return false
 *     }
 *   unlock: CAS(LOCKED, 0) else unlock_slow:
 *     unpark_one(m, callback(r)):
 *       if r.unparked && be_fair { if !r.have_more { state = LOCKED }; return HANDOFF }
 *       state = r.have_more ? PARKED : 0; return NORMAL
 *
 * Three threads take the lock once each; thread 1 uses a timed lock that may
 * time out (then it skips its critical section). be_fair is a free choice.
 *
 * Checked: mutual exclusion (assert), no invalid end state (a thread parked
 * for ever behind an unlocked mutex is a lost wakeup), LTL <> finished.
 *
 * BUG_MUTEX_TIMEOUT_IGNORES_WAS_LAST: the timed-out callback clears PARKED even
 * when other threads are still parked; the next unlock takes the fast path and
 * wakes nobody.
 */
#ifndef MAXSPUR
#define MAXSPUR 1
#endif
#ifndef MAXTO
#define MAXTO 1
#endif

#define N 3
#define LOCKED 1
#define PARKED 2
#define NORMAL 0
#define HANDOFF 1

byte state = 0;
byte bucket = 0;               /* bucket WordLock: 0 or _pid+1 */
byte q[N];                     /* FIFO queue of thread ids + 1 */
byte qlen = 0;
byte futex[N];                 /* per-thread parker word */
bit fq[N];                     /* per-thread: asleep in futex_wait */
byte token[N];
byte spur = 0;
byte tos = 0;
byte incs = 0;                 /* threads in the critical section */
byte finished = 0;

inline lock_bucket() { atomic { bucket == 0 -> bucket = _pid + 1 } }
inline unlock_bucket() { assert(bucket == _pid + 1); bucket = 0 }

/* remove thread t from the queue, wherever it is */
inline unlink(t) {
	i = 0;
	do
	:: i < qlen && q[i] != t + 1 -> i++
	:: i < qlen && q[i] == t + 1 ->
		do
		:: i + 1 < qlen -> q[i] = q[i + 1]; i++
		:: else -> break
		od;
		qlen--; q[qlen] = 0;
		break
	:: i >= qlen -> assert(false)     /* "timed-out thread not found in its queue" */
	od
}

proctype Thread(byte me; bit timed) {
	byte s;
	byte res;          /* 0 Invalid, 1 Unparked, 2 TimedOut */
	byte i;
	bit to;
	bit got = 0;

	/* lock(): fast path */
	atomic {
		if
		:: state == 0 -> state = LOCKED; got = 1
		:: else -> skip
		fi
	}
	do
	:: got -> break
	:: !got ->
		s = state;
		if
		:: (s & LOCKED) == 0 ->
			atomic { if :: state == s -> state = s | LOCKED; got = 1 :: else -> skip fi }
		:: (s & LOCKED) != 0 ->
			if
			:: (s & PARKED) == 0 ->
				atomic { if :: state == s -> state = s | PARKED :: else -> s = 255 fi }
			:: else -> skip
			fi;
			if
			:: s == 255 -> skip           /* CAS failed: retry */
			:: else ->
				/* park(m, validate, timed_out) */
				lock_bucket();
				if
				:: state != (LOCKED | PARKED) -> unlock_bucket(); res = 0
				:: else ->
					q[qlen] = me + 1; qlen++;
					futex[me] = 1;            /* prepare_park */
					token[me] = NORMAL;
					unlock_bucket();
					to = 0;
					do
					:: futex[me] == 0 -> break
					:: futex[me] != 0 ->
						atomic { if :: futex[me] == 1 -> fq[me] = 1 :: else -> skip fi }
						atomic {
							if
							:: fq[me] == 0 -> skip
							:: fq[me] == 1 && spur < MAXSPUR -> spur++; fq[me] = 0
							:: fq[me] == 1 && timed && tos < MAXTO -> tos++; fq[me] = 0; to = 1
							fi
						}
						if
						:: to -> break
						:: else -> skip
						fi
					od;
					if
					:: !to -> res = 1
					:: to ->
						lock_bucket();
						if
						:: futex[me] == 0 -> unlock_bucket(); res = 1      /* late unpark */
						:: futex[me] != 0 ->
							unlink(me);
							/* was_last: nobody else parked on this key */
#ifdef BUG_MUTEX_TIMEOUT_IGNORES_WAS_LAST
							state = state & ~PARKED;
#else
							if
							:: qlen == 0 -> state = state & ~PARKED
							:: else -> skip
							fi;
#endif
							unlock_bucket(); res = 2
						fi
					fi
				fi;
				if
				:: res == 1 && token[me] == HANDOFF -> got = 1
				:: res == 2 -> break                       /* timed out: no lock */
				:: else -> skip                            /* retry */
				fi
			fi
		fi
	od;

	if
	:: got ->
		incs++;
		assert(incs == 1);                     /* mutual exclusion */
		incs--;
		/* unlock() */
		atomic {
			if
			:: state == LOCKED -> state = 0; got = 0
			:: else -> skip
			fi
		}
		if
		:: got ->
			/* unlock_slow: unpark_one(m, callback) */
			byte t;
			bit more;
			lock_bucket();
			if
			:: qlen > 0 ->
				t = q[0] - 1;
				i = 0;
				do
				:: i + 1 < qlen -> q[i] = q[i + 1]; i++
				:: else -> break
				od;
				qlen--; q[qlen] = 0;
				more = (qlen > 0);
				if
				:: true ->                          /* be_fair: hand the lock over */
					if
					:: !more -> state = LOCKED
					:: else -> skip
					fi;
					token[t] = HANDOFF
				:: true ->
					if
					:: more -> state = PARKED
					:: else -> state = 0
					fi;
					token[t] = NORMAL
				fi;
				futex[t] = 0;                       /* unpark_lock */
				unlock_bucket();
				atomic { if :: fq[t] == 1 -> fq[t] = 0 :: else -> skip fi }   /* unpark */
			:: else ->
				state = 0;                          /* nobody: have_more = false */
				unlock_bucket()
			fi
		:: else -> skip
		fi
	:: else -> skip
	fi;
	finished++
}

init {
	atomic {
		run Thread(0, 0);
		run Thread(1, 1);
		run Thread(2, 0)
	}
}

#ifdef LTL
ltl live { <> (finished == N) }
#endif
