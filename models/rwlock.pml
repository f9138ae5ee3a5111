/*
 * rwlock.pml: parking_lot RawRwLock (src/raw_rwlock.rs) over the parking
 * lot, as ported in internal/lot (RwLock): the state word, lock_common
 * (park on the main key with a token), wait_for_readers (park on the
 * writer key with WRITER_PARKED), unlock_exclusive_slow and the timeout
 * path through wake_parked_threads (unpark_filter with tokens: readers
 * together, at most one writer or upgradable, stop after a writer), the
 * last reader's unpark_one on the writer key, and upgrade.
 *
 *   state: PARKED=1 WRITER_PARKED=2 UPGRADABLE=4 WRITER=8 ONE_READER=16
 *
 * Threads (one operation each):
 *   0 writer      lock_exclusive (timed: may time out in lock_common or in
 *                 wait_for_readers, bounded by MAXTO), unlock_exclusive
 *   1 reader      lock_shared, unlock_shared
 *   2 upgrader    lock_upgradable, upgrade, unlock_exclusive
 * Both keys hash to one bucket (one bucket lock, one FIFO queue with a key
 * per entry). be_fair (hand-off) is a free choice at every unlock. The
 * parker is a per-thread futex word (marked under the bucket lock, as
 * lot.pml verifies); no spurious wakeups (lock_common and
 * wait_for_readers loop on the state anyway).
 *
 * Checked: mutual exclusion (a writer alone; readers only without a
 * writer), no invalid end state (a thread asleep for ever: lost wakeup),
 * and LTL <> finished under weak fairness.
 *
 * Bug variants (each must be caught):
 *   BUG_RW_VALIDATE_NO_PARKED: lock_common's validate checks only the
 *     blocking flags, not PARKED: a thread parks after an unlock cleared
 *     PARKED, and the next unlock takes the fast path.
 *   BUG_RW_UNLOCK_SHARED_NEW_VALUE: unlock_shared tests the value after
 *     its fetch_sub instead of the one before: the last reader never wakes
 *     the writer waiting for it.
 *   BUG_RW_TIMEOUT_NO_WAKE: a writer timing out in wait_for_readers gives
 *     WRITER back without waking the threads queued behind it.
 *
 * Misuse (internal/lot/rwlock.go heldExclusive, heldShared; not upstream,
 * whose unlocks are unsafe fns): an exclusive unlock is refused unless
 * the state shows WRITER with no readers (WRITER with readers is a writer
 * still waiting for them, so the caller is not it), and a read unlock
 * unless a plain reader is counted (the upgradable holder counts as one).
 * A refused call leaves the state as it was. The legitimate unlocks go
 * through the same checks, and an assertion fails if one is refused. With
 * -DMISUSE the threads also misuse the lock, and the recovered panic is a
 * refused call after which they carry on:
 *   the reader, while it holds its read, calls unlock_exclusive (Unlock);
 *   the upgrader, while it is the only reader (the reader thread has
 *   finished), calls unlock_shared (RUnlock).
 * Each must be refused whatever the writer is doing; the bug variants
 * check only what the checks tested before (and must be caught by the
 * consequence: exclusion broken, or a thread asleep for ever):
 *   BUG_RW_MISUSE_UNLOCK_WRITER_ONLY: the exclusive unlock checks WRITER
 *     only: a reader's Unlock while the writer waits for it clears WRITER
 *     and the count; the reader's own RUnlock is then refused (the lock is
 *     dead: the first assertion spin finds), or the writer enters beside
 *     the reader.
 *   BUG_RW_MISUSE_RUNLOCK_READERS_ONLY: the read unlock checks for a
 *     reader only: the upgradable holder's RUnlock takes its own reader
 *     away, its upgrade then wraps the count and waits for ever.
 */
#ifndef MAXTO
#define MAXTO 1
#endif

#define N 3
#define PARKED 1
#define WPARKED 2
#define UPG 4
#define WRITER 8
#define ONE 16
#define READERS 240           /* ~0b1111 within a byte */
#define NORMAL 0
#define HANDOFF 1

byte state = 0;
byte bucket = 0;               /* bucket WordLock: 0 or _pid+1 */
byte q[N];                     /* FIFO queue: thread id + 1 */
bit qk[N];                     /* key of each entry: 0 main, 1 writer key */
byte qlen = 0;
bit futex[N];                  /* per-thread parker: 1 armed, 0 unparked */
byte tk[N];                    /* unpark token */
byte ptok[N];                  /* park token (what the thread adds when handed the lock) */
bit woken[N];
byte tos = 0;
byte writers = 0;              /* threads inside as writer */
byte readers = 0;              /* threads inside as reader */
byte finished = 0;
bit rdone = 0;                 /* the reader thread has finished (MISUSE) */

inline lock_bucket() { atomic { bucket == 0 -> bucket = _pid + 1 } }
inline unlock_bucket() { assert(bucket == _pid + 1); bucket = 0 }

/* park(key k, validate VALID, token): res 0 Invalid, 1 Unparked, 2 TimedOut.
 * On a timeout the key's timed_out callback runs under the bucket lock:
 * main key (lock_common) clears PARKED if was_last; writer key
 * (wait_for_readers) clears WRITER_PARKED (only the writer parks there). */
inline park(k, VALID, token, timed) {
	lock_bucket();
	if
	:: !(VALID) -> unlock_bucket(); res = 0
	:: else ->
		q[qlen] = me + 1; qk[qlen] = k; qlen++;
		ptok[me] = token;
		tk[me] = NORMAL;
		futex[me] = 1;                     /* prepare_park, under the lock */
		unlock_bucket();
		to = 0;
		if
		:: futex[me] == 0 -> skip
		:: timed && tos < MAXTO -> atomic { tos++; to = 1 }
		fi;
		if
		:: !to -> res = 1
		:: to ->
			lock_bucket();
			if
			:: futex[me] == 0 -> unlock_bucket(); res = 1     /* late unpark */
			:: else ->
				/* unlink ourselves; was_last: nobody else on our key */
				i = 0; j = 0; last = 1;
				do
				:: i < qlen ->
					if
					:: q[i] == me + 1 -> skip
					:: else ->
						if :: qk[i] == k -> last = 0 :: else -> skip fi;
						q[j] = q[i]; qk[j] = qk[i]; j++
					fi;
					i++
				:: else -> break
				od;
				assert(j + 1 == qlen);
				qlen = j; q[qlen] = 0;
				if
				:: k == 0 && last -> state = state & ~PARKED
				:: k == 0 && !last -> skip
				:: k == 1 -> state = state & ~WPARKED
				fi;
				unlock_bucket(); res = 2
			fi
		fi
	fi
}

/* wake_parked_threads(ns, callback) on the main key: unpark_filter.
 * cb 0: unlock_exclusive_slow's callback; cb 1: clear PARKED if !more. */
inline wake_parked(ns0, cb) {
	lock_bucket();
	ns = ns0; n = 0; more = 0; stop = 0; i = 0; j = 0;
	do
	:: i < qlen ->
		t = q[i] - 1;
		if
		:: qk[i] != 0 -> q[j] = q[i]; qk[j] = qk[i]; j++
		:: qk[i] == 0 && (stop || (ns & WRITER) != 0) ->
			stop = 1; more = 1; q[j] = q[i]; qk[j] = qk[i]; j++        /* Stop */
		:: qk[i] == 0 && !stop && (ns & WRITER) == 0 && (ptok[t] & (UPG | WRITER)) != 0 && (ns & UPG) != 0 ->
			more = 1; q[j] = q[i]; qk[j] = qk[i]; j++                   /* Skip */
		:: qk[i] == 0 && !stop && (ns & WRITER) == 0 && !((ptok[t] & (UPG | WRITER)) != 0 && (ns & UPG) != 0) ->
			ns = ns + ptok[t]; woken[t] = 1; n++                        /* Unpark */
		fi;
		i++
	:: else -> break
	od;
	qlen = j;
	do :: j < N -> q[j] = 0; j++ :: else -> break od;
	/* callback, under the bucket lock */
	tok = NORMAL;
	if
	:: cb == 0 ->
		if
		:: n > 0 ->                          /* be_fair: hand the lock over */
			if :: more -> ns = ns | PARKED :: else -> skip fi;
			state = ns; tok = HANDOFF
		:: true ->
			if :: more -> state = PARKED :: else -> state = 0 fi
		fi
	:: cb == 1 ->
		if :: !more -> state = state & ~PARKED :: else -> skip fi
	fi;
	/* pass the token and unpark_lock each woken thread */
	i = 0;
	do
	:: i < N ->
		if :: woken[i] -> woken[i] = 0; tk[i] = tok; futex[i] = 0 :: else -> skip fi;
		i++
	:: else -> break
	od;
	unlock_bucket()
}

/* lock_common: try_lock for kind, park on the main key. got = 1 or 0 (timeout) */
inline lock_common(kind, timed) {
	got = 0;
	do
	:: got || done -> break
	:: else ->
		s = state;
		/* try_lock */
		if
		:: kind == 0 ->
			if
			:: (s & (WRITER | UPG)) == 0 -> atomic { if :: state == s -> state = s | WRITER; got = 1 :: else -> skip fi }
			:: else -> skip
			fi
		:: kind == 1 ->
			if
			:: (s & WRITER) == 0 -> atomic { if :: state == s -> state = s + ONE; got = 1 :: else -> skip fi }
			:: else -> skip
			fi
		:: kind == 2 ->
			if
			:: (s & (WRITER | UPG)) == 0 -> atomic { if :: state == s -> state = s + ONE + UPG; got = 1 :: else -> skip fi }
			:: else -> skip
			fi
		fi;
		if
		:: got -> skip
		:: !got && ((kind == 0 && (s & (WRITER | UPG)) == 0) || (kind == 1 && (s & WRITER) == 0) || (kind == 2 && (s & (WRITER | UPG)) == 0)) ->
			skip                                     /* CAS lost: retry */
		:: else ->
			/* set PARKED */
			cas = 1;
			if
			:: (s & PARKED) == 0 -> atomic { if :: state == s -> state = s | PARKED :: else -> cas = 0 fi }
			:: else -> skip
			fi;
			if
			:: cas ->
#ifdef BUG_RW_VALIDATE_NO_PARKED
				park(0, (state & flags) != 0, ptokv, timed);
#else
				park(0, (state & PARKED) != 0 && (state & flags) != 0, ptokv, timed);
#endif
				if
				:: res == 1 && tk[me] == HANDOFF -> got = 1
				:: res == 2 -> done = 1                  /* timed out */
				:: else -> skip
				fi
			:: else -> skip
			fi
		fi
	od
}

/* wait_for_readers(prev): WRITER is ours; ok = 1, or 0 on timeout */
inline wait_for_readers(prev, timed) {
	ok = 1;
	do
	:: (state & READERS) == 0 -> break
	:: else ->
		s = state;
		cas = 1;
		if
		:: (s & READERS) == 0 -> cas = 0
		:: (s & READERS) != 0 && (s & WPARKED) == 0 ->
			atomic { if :: state == s -> state = s | WPARKED :: else -> cas = 0 fi }
		:: else -> skip
		fi;
		if
		:: cas ->
			park(1, (state & READERS) != 0 && (state & WPARKED) != 0, WRITER, timed);
			if
			:: res == 2 ->
				atomic { s = state; state = state + prev - WRITER };
#ifndef BUG_RW_TIMEOUT_NO_WAKE
				if
				:: (s & PARKED) != 0 -> wake_parked(prev, 1)
				:: else -> skip
				fi;
#endif
				ok = 0; break
			:: else -> skip
			fi
		:: else -> skip
		fi
	od
}

/* unlock_exclusive: the fast CAS, else the misuse check (heldExclusive),
 * then unlock_exclusive_slow. legit: the caller is the writer, and a
 * refusal is a bug; otherwise a refusal is the recovered panic (nothing
 * changed) and the caller carries on. The check and the slow path's
 * update are separate steps, as in the code: for the writer the check is
 * stable (only PARKED can change under it). */
inline unlock_exclusive(legit) {
	atomic { if :: state == WRITER -> state = 0; fast = 1 :: else -> fast = 0 fi };
	if
	:: !fast ->
		s = state;
#ifdef BUG_RW_MISUSE_UNLOCK_WRITER_ONLY
		if :: (s & WRITER) == 0 -> refused = 1 :: else -> refused = 0 fi;
#else
		if :: (s & (WRITER | READERS)) != WRITER -> refused = 1 :: else -> refused = 0 fi;
#endif
		assert(!(legit && refused));             /* a legitimate unlock refused */
		if
		:: !refused -> wake_parked(0, 0)
		:: else -> skip
		fi
	:: else -> skip
	fi
}

/* unlock_shared: the CAS loop with the misuse check (heldShared) on the
 * value it replaces: a plain reader must be counted, READERS greater than
 * ONE if UPGRADABLE is set (the upgradable holder counts as one), than 0
 * otherwise. Then the last reader wakes the writer waiting for it. */
inline unlock_shared(legit) {
	atomic {
		s = state;
#ifdef BUG_RW_MISUSE_RUNLOCK_READERS_ONLY
		if :: (s & READERS) == 0 -> refused = 1 :: else -> refused = 0 fi;
#else
		if :: (s & READERS) <= (s & UPG) * 4 -> refused = 1 :: else -> refused = 0 fi;
#endif
		if :: !refused -> state = state - ONE :: else -> skip fi
	};
	assert(!(legit && refused));                     /* a legitimate unlock refused */
#ifdef BUG_RW_UNLOCK_SHARED_NEW_VALUE
	s = s - ONE;
#endif
	if
	:: !refused && (s & (READERS | WPARKED)) == (ONE | WPARKED) ->
		/* unlock_shared_slow: unpark_one on the writer key */
		lock_bucket();
		i = 0; j = 0; t = N;
		do
		:: i < qlen ->
			if
			:: t == N && qk[i] == 1 -> t = q[i] - 1
			:: else -> q[j] = q[i]; qk[j] = qk[i]; j++
			fi;
			i++
		:: else -> break
		od;
		qlen = j;
		do :: j < N -> q[j] = 0; j++ :: else -> break od;
		state = state & ~WPARKED;
		if :: t < N -> tk[t] = NORMAL; futex[t] = 0 :: else -> skip fi;
		unlock_bucket()
	:: else -> skip
	fi
}

proctype Thread(byte me; byte kind; bit timed) {
	byte s, ns, t, n, i, j, res, tok, ptokv, flags;
	bit to, last, more, stop, got, done, cas, ok, fast, refused;

	if
	:: kind == 0 -> ptokv = WRITER; flags = WRITER | UPG
	:: kind == 1 -> ptokv = ONE; flags = WRITER
	:: kind == 2 -> ptokv = ONE + UPG; flags = WRITER | UPG
	fi;
	done = 0;
	lock_common(kind, timed);
	if
	:: got && kind == 0 -> wait_for_readers(0, timed); got = ok
	:: else -> skip
	fi;

	if
	:: got && kind == 0 ->
		atomic { assert(writers == 0 && readers == 0); writers++ };
		writers--;
		unlock_exclusive(1)
	:: got && kind == 1 ->
		atomic { assert(writers == 0); readers++ };
#ifdef MISUSE
		/* misuse: Unlock by a reader (it still holds its read) */
		unlock_exclusive(0);
		assert(writers == 0);
#endif
		readers--;
		unlock_shared(1)
	:: got && kind == 2 ->
		atomic { assert(writers == 0); readers++ };
#ifdef MISUSE
		/* misuse: RUnlock by the upgradable holder, the only reader */
		if
		:: rdone -> unlock_shared(0)
		:: else -> skip
		fi;
#endif
		/* upgrade: fetch_sub(ONE | UPG - WRITER) */
		atomic { s = state; state = state - ONE - UPG + WRITER };
		readers--;
		if
		:: (s & READERS) != ONE -> wait_for_readers(ONE + UPG, 0)
		:: else -> skip
		fi;
		atomic { assert(writers == 0 && readers == 0); writers++ };
		writers--;
		unlock_exclusive(1)
	:: else -> skip                              /* timed out */
	fi;
	if :: kind == 1 -> rdone = 1 :: else -> skip fi;
	finished++
}

init {
	atomic {
		run Thread(0, 0, 1);
		run Thread(1, 1, 0);
		run Thread(2, 2, 0)
	}
}

#ifdef LTL
ltl live { <> (finished == N) }
#endif
