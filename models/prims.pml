/*
 * prims.pml: the kernel and libc primitives the parker models are built on.
 *
 * Every model has exactly one thread that sleeps on a given futex word or
 * condition variable (a thread parker belongs to one thread), so a wait
 * queue is one bit: fq for the futex, cvq for the condition variable.
 *
 * Faithfulness rules:
 *  - futex_wait(addr, val) compares *addr with val and enqueues the caller in
 *    one atomic step (the kernel does both under the hash-bucket lock);
 *    BUG_FUTEX_CHECK_THEN_SLEEP splits the compare from the enqueue.
 *  - futex_wake wakes a queued waiter if there is one; otherwise it does
 *    nothing (a wake with nobody queued is not remembered).
 *  - cond_wait releases the mutex and enqueues the caller atomically (POSIX);
 *    cond_signal with nobody queued is lost.
 *  - Every wait may return spuriously (signals, EINTR, the own ones of a condvar
 *    spurious wakeups), at most MAXSPUR times per run so that a run is finite
 *    and the liveness check is not defeated by an infinite spurious loop.
 *  - A timed wait may time out at any moment (the deadline is a nondeterministic
 *    choice), at most MAXTO times per run.
 */

#ifndef MAXSPUR
#define MAXSPUR 1
#endif
#ifndef MAXTO
#define MAXTO 1
#endif

byte spur = 0;          /* spurious wakeups used */
byte tos = 0;           /* timeouts used */

/* ---- futex ------------------------------------------------------------ */

bit fq = 0;             /* the sleeper is in the futex wait queue */

/* futex_wait(addr, val); sets r to 1 if it returned because of a timeout. */
inline futex_wait_core(addr, val, timed, r) {
	r = 0;
#ifdef BUG_FUTEX_CHECK_THEN_SLEEP
	/* user-space check, then sleep: the value can change in between */
	if
	:: addr == val -> fq = 1
	:: else -> skip
	fi;
#else
	atomic {
		if
		:: addr == val -> fq = 1
		:: else -> skip
		fi
	}
#endif
	atomic {
		if
		:: fq == 0 -> skip
		:: fq == 1 && spur < MAXSPUR -> spur++; fq = 0
		:: fq == 1 && timed && tos < MAXTO -> tos++; fq = 0; r = 1
		fi
	}
}

inline futex_wait(addr, val) {
	futex_wait_core(addr, val, 0, fwr)
}

inline futex_wait_timed(addr, val, r) {
	futex_wait_core(addr, val, 1, r)
}

inline futex_wake() {
	atomic {
		if
		:: fq == 1 -> fq = 0
		:: else -> skip
		fi
	}
}

/* ---- mutex ------------------------------------------------------------ */

/* m holds 0 (free) or the _pid of the owner + 1 */
inline mutex_lock(m) {
	atomic { m == 0 -> m = _pid + 1 }
}

inline mutex_unlock(m) {
	assert(m == _pid + 1);
	m = 0
}

/* ---- condition variable ----------------------------------------------- */

bit cvq = 0;            /* the sleeper is in the condvar wait queue */

/* cond_wait(m): atomically release m and enqueue; sleep; re-acquire m.
 * With timed, may time out (r = 1). */
inline cond_wait_core(m, timed, r) {
	r = 0;
	atomic {
		mutex_unlock(m);
		cvq = 1
	}
	atomic {
		if
		:: cvq == 0 -> skip
		:: cvq == 1 && spur < MAXSPUR -> spur++; cvq = 0
		:: cvq == 1 && timed && tos < MAXTO -> tos++; cvq = 0; r = 1
		fi
	}
	mutex_lock(m)
}

inline cond_wait(m) {
	cond_wait_core(m, 0, cwr)
}

inline cond_timedwait(m, r) {
	cond_wait_core(m, 1, r)
}

/* signal with nobody waiting is lost */
inline cond_signal() {
	atomic {
		if
		:: cvq == 1 -> cvq = 0
		:: else -> skip
		fi
	}
}
