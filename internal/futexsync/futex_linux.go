//go:build linux

package futexsync

import (
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// Supported reports whether this OS has the futex operations used here.
const Supported = true

// futexWakeN wakes at most n sleepers on addr and returns how many it woke
// (0 on an error).
func futexWakeN(addr *atomic.Int32, n int32) int {
	r, e := futex.Wake(addr, n)
	if e != 0 {
		return 0
	}
	return r
}

const wakeAll = futex.WakeAll

// Mutex states.
const (
	unlocked  = 0
	locked    = 1 // locked, nobody sleeping on the word
	contended = 2 // locked, sleepers possible: the unlock must FUTEX_WAKE
)

// spinLimit is std's spin count: 100 iterations while the state reads 1.
const spinLimit = 100

// Mutex is Rust std's Linux futex mutex. The zero value is unlocked.
//
// Invariant: a thread sleeps on the word only after it saw 2 there (its
// swap stored 2, or FUTEX_WAIT(2) checked it), or after RequeueCondvar moved
// it there (see there); and any unlock that takes the state from 2 wakes one
// sleeper, which on waking swaps 2 in again before it sleeps or takes the
// lock. So while sleepers exist, the state is 2 whenever the lock is held
// and each unlock wakes one: no sleeper is left behind.
type Mutex struct {
	state atomic.Int32
	_     [60]byte // own cache line: the condvar's word is next to it in users
}

// Lock acquires m.
func (m *Mutex) Lock() {
	if !m.state.CompareAndSwap(unlocked, locked) {
		m.lockContended()
	}
}

// TryLock acquires m if it is unlocked.
func (m *Mutex) TryLock() bool { return m.state.CompareAndSwap(unlocked, locked) }

func (m *Mutex) lockContended() {
	state := m.spin()
	// Unlocked after spinning: take it as uncontended (1).
	if state == unlocked {
		if m.state.CompareAndSwap(unlocked, locked) {
			return
		}
		state = m.state.Load()
	}
	for {
		// Store 2 before sleeping: whoever holds the lock now will see it
		// on unlock and wake us. If the swap returned 0 we own the lock
		// (in state 2: one possibly unnecessary wake on our unlock, as std).
		if state != contended && m.state.Swap(contended) == unlocked {
			return
		}
		// Sleeps only while the word is still 2 (checked by the kernel
		// under its bucket lock, against which FUTEX_WAKE synchronises).
		futex.Wait(&m.state, contended, nil)
		state = m.spin()
	}
}

// spin spins while the lock is held uncontended (1), at most spinLimit times.
func (m *Mutex) spin() int32 {
	for n := spinLimit; ; n-- {
		s := m.state.Load()
		if s != locked || n == 0 {
			return s
		}
	}
}

// LockContended acquires m in contended mode, as glibc's
// __pthread_mutex_cond_lock: swap 2 until the swap returns 0, sleeping on 2.
// Waiters coming back from RequeueCondvar use it, so that the state is 2
// (and the next unlock wakes) while requeued sleepers may remain.
func (m *Mutex) LockContended() {
	for m.state.Swap(contended) != unlocked {
		futex.Wait(&m.state, contended, nil)
	}
}

// Unlock releases m; if it was contended it wakes one sleeper.
func (m *Mutex) Unlock() {
	if m.state.Swap(unlocked) == contended {
		futexWakeN(&m.state, 1)
	}
}

// markContendedIfLocked sets 1 -> 2 and reports whether m is locked (1 or 2).
func (m *Mutex) markContendedIfLocked() bool {
	for {
		s := m.state.Load()
		switch s {
		case unlocked:
			return false
		case contended:
			return true
		}
		if m.state.CompareAndSwap(locked, contended) {
			return true
		}
	}
}

// Condvar is Rust std's Linux futex condvar: a sequence counter. The zero
// value has no waiters.
//
// No missed wakeup: Wait reads the counter while holding the mutex, and a
// notifier that changes the condition does so under the same mutex, so
// either its increment happens after our read (the FUTEX_WAIT below sees a
// different value and returns EAGAIN at once, or we are already queued on
// the counter's futex when its FUTEX_WAKE runs: the kernel's check and the
// wake take the same bucket lock), or the condition change happened before
// we took the mutex and our caller's predicate loop never calls Wait.
type Condvar struct {
	seq atomic.Int32
	_   [60]byte
}

// Wait unlocks m, sleeps until notified (or spuriously), and relocks m.
// Callers loop on their predicate.
func (c *Condvar) Wait(m *Mutex) {
	v := c.seq.Load()
	m.Unlock()
	futex.Wait(&c.seq, v, nil)
	m.Lock()
}

// NotifyOne wakes one waiter; it returns how many the kernel woke (0 or 1).
func (c *Condvar) NotifyOne() int {
	c.seq.Add(1)
	return futexWakeN(&c.seq, 1)
}

// NotifyAll wakes every waiter; it returns how many the kernel woke.
func (c *Condvar) NotifyAll() int {
	c.seq.Add(1)
	return futexWakeN(&c.seq, wakeAll)
}

// RequeueCondvar is a futex condvar whose notifications move waiters onto
// the mutex's futex instead of waking them all. It must always be used with
// the same Mutex. The zero value has no waiters.
//
// The protocol, and why no waiter is left asleep:
//
//  1. Wait reads the counter under the mutex, unlocks, FUTEX_WAITs on the
//     counter (the same missed-wakeup argument as Condvar), and on return,
//     for any reason (woken, woken after being requeued, EAGAIN, EINTR),
//     relocks with LockContended: swap 2, sleep on 2.
//
//  2. NotifyAll marks the mutex contended (1 -> 2) if it is locked, then
//     increments the counter, and only then issues
//     FUTEX_CMP_REQUEUE(counter, expected = the new count): atomically in
//     the kernel, it wakes nwake waiters and moves the rest onto the mutex
//     word's queue. EAGAIN means another notifier incremented meanwhile:
//     reread and retry.
//
//     - The caller holds the mutex (NotifyAllLocked, parking_lot's
//     RequeueAll): it stores 2 first, so the state is 2 from before the
//     first waiter lands on the mutex's queue until the caller's own
//     unlock, which therefore FUTEX_WAKEs one. Nobody can unlock in
//     between (the caller owns the lock), so waking anyone now would only
//     make it sleep again on the mutex: nwake = 0.
//     - The caller does not hold it (NotifyAll, parking_lot's
//     UnparkOneRequeueRest): it cannot own the 2, because a third thread
//     may unlock between the mark and the requeue (reading 2 and waking
//     nobody, since the requeued waiters are not there yet). So it wakes
//     one waiter (nwake = 1) and requeues the rest: the woken waiter's
//     LockContended swaps 2 in after the requeue happened (it was woken by
//     it), so from then on the state is 2 whenever the lock is held, and
//     every unlock wakes one, which again swaps 2 before it holds or sleeps.
//     The mark before the requeue covers the lock being held at that moment
//     (its holder's unlock then wakes one too), as Amanieu describes in
//     rust-lang/rust PR #133615.
//
//  3. The last requeued waiter to get the lock holds it in state 2 and its
//     unlock makes one FUTEX_WAKE that finds nobody: the price of not
//     tracking the queue length in the word (std's mutex pays it as well).
type RequeueCondvar struct {
	seq atomic.Int32
	_   [60]byte
}

// Wait unlocks m, sleeps until notified (or spuriously), and relocks m in
// contended mode.
func (c *RequeueCondvar) Wait(m *Mutex) {
	v := c.seq.Load()
	m.Unlock()
	futex.Wait(&c.seq, v, nil)
	m.LockContended()
}

// NotifyAllLocked is NotifyAll for a caller that holds m: mark m contended,
// then requeue every waiter onto it, waking none (parking_lot's RequeueAll).
// It returns the kernel's counts.
func (c *RequeueCondvar) NotifyAllLocked(m *Mutex) (woken, requeued int) {
	// We own the lock, so the state is 1 or 2 and only we can make it 0.
	m.state.Store(contended)
	return c.requeue(m, 0, wakeAll)
}

// NotifyAll is for a caller that does not hold m: wake one waiter and
// requeue the rest onto m (parking_lot's UnparkOneRequeueRest), marking m
// contended first if someone holds it. It returns the kernel's counts.
func (c *RequeueCondvar) NotifyAll(m *Mutex) (woken, requeued int) {
	m.markContendedIfLocked()
	return c.requeue(m, 1, wakeAll)
}

// NotifyOneLocked is NotifyOne for a caller that holds m: requeue one
// waiter onto m, waking none (parking_lot's RequeueOne).
func (c *RequeueCondvar) NotifyOneLocked(m *Mutex) (woken, requeued int) {
	m.state.Store(contended)
	return c.requeue(m, 0, 1)
}

// NotifyOne wakes one waiter (parking_lot's UnparkOne); it relocks in
// contended mode.
func (c *RequeueCondvar) NotifyOne(m *Mutex) (woken, requeued int) {
	c.seq.Add(1)
	return futexWakeN(&c.seq, 1), 0
}

func (c *RequeueCondvar) requeue(m *Mutex, nwake, nrequeue int32) (woken, requeued int) {
	v := c.seq.Add(1)
	for {
		r, e := futex.CmpRequeue(&c.seq, nwake, nrequeue, &m.state, v)
		if e == unix.EAGAIN {
			v = c.seq.Load()
			continue
		}
		if e != 0 || r <= 0 {
			return 0, 0
		}
		woken = min(r, int(nwake))
		return woken, r - woken
	}
}

// Event is a one-shot flag threads can sleep on: Wait blocks until Set has
// been called (FUTEX_WAIT on 0; no lost wakeup, since Set stores 1 before
// its FUTEX_WAKE and the kernel rechecks the word). The zero value is
// unset.
type Event struct {
	v atomic.Int32
	_ [60]byte
}

// Wait blocks until Set.
func (e *Event) Wait() {
	for e.v.Load() == 0 {
		futex.Wait(&e.v, 0, nil)
	}
}

// Set wakes every waiter, now and later.
func (e *Event) Set() {
	e.v.Store(1)
	futexWakeN(&e.v, wakeAll)
}
