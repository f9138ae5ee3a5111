package lot

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// Mutex is parking_lot's RawMutex: a one-word lock on the parking lot. The
// zero value is unlocked. It implements sync.Locker. A Mutex must not be
// copied after first use, and it is not reentrant.
//
// Fairness is upstream's: a locker may barge in ahead of parked threads,
// but on average once every 0.5 ms per bucket an unlock hands the lock
// directly to the parked thread (be_fair); UnlockFair always does.
type Mutex struct {
	// state holds lockedBit and parkedBit. Upstream uses an AtomicU8; Go's
	// smallest atomic is 32 bits.
	//
	// parkedBit may only be cleared while holding the bucket lock of the
	// mutex's address (in an unpark callback or a timed-out callback):
	// that is what keeps a thread that just set it from sleeping unseen.
	//
	//	LOCKED PARKED  meaning
	//	0      0       unlocked, nobody parked
	//	1      0       locked, nobody parked
	//	0      1       unlocked, threads parked (being woken one by one)
	//	1      1       locked, threads parked
	state atomic.Uint32
}

const (
	lockedBit uint32 = 1
	parkedBit uint32 = 2
)

const (
	// tokenNormal tells the unparked thread to try to lock again.
	tokenNormal UnparkToken = 0
	// tokenHandoff tells the unparked thread it now owns the lock: the
	// unlocker handed it over without unlocking.
	tokenHandoff UnparkToken = 1
)

// Lock locks m, parking the thread if it is held.
func (m *Mutex) Lock() {
	if !m.state.CompareAndSwap(0, lockedBit) {
		m.lockSlow(time.Time{})
	}
	deadlockAcquire(unsafe.Pointer(m))
}

// TryLock locks m if it is not held, without waiting (upstream: try_lock,
// which succeeds even if threads are parked, as long as it is unlocked).
func (m *Mutex) TryLock() bool {
	state := m.state.Load()
	for {
		if state&lockedBit != 0 {
			return false
		}
		if m.state.CompareAndSwap(state, state|lockedBit) {
			deadlockAcquire(unsafe.Pointer(m))
			return true
		}
		state = m.state.Load()
	}
}

// TryLockUntil locks m, waiting at most until deadline; it reports whether
// it got the lock.
func (m *Mutex) TryLockUntil(deadline time.Time) bool {
	if deadline.IsZero() {
		// Zero means "no timeout" in Park; here it means "already passed".
		deadline = time.Unix(0, 1)
	}
	ok := m.state.CompareAndSwap(0, lockedBit) || m.lockSlow(deadline)
	if ok {
		deadlockAcquire(unsafe.Pointer(m))
	}
	return ok
}

// TryLockFor locks m, waiting at most d; it reports whether it got the lock.
func (m *Mutex) TryLockFor(d time.Duration) bool {
	ok := m.state.CompareAndSwap(0, lockedBit) || m.lockSlow(toDeadline(d))
	if ok {
		deadlockAcquire(unsafe.Pointer(m))
	}
	return ok
}

// maxTimeout bounds timeouts: a longer one means "no timeout", as upstream
// where Instant + timeout overflows (util::to_deadline returns None). Go's
// time.Add would instead drop the monotonic reading on overflow.
const maxTimeout = 100 * 365 * 24 * time.Hour

// toDeadline turns a timeout into a deadline; zero means none.
func toDeadline(d time.Duration) time.Time {
	if d > maxTimeout {
		return time.Time{}
	}
	return time.Now().Add(d)
}

// Unlock unlocks m. It must be held (by anyone: like sync.Mutex, and like
// lock_api's raw unlock, the lock is not tied to a thread).
//
// The deadlock detector forgets m only after the state has changed
// (upstream, src/raw_mutex.rs:101, before: its unlock cannot fail): an
// unlock of an unlocked m panics in unlockSlow and leaves the record as it
// was. The record is read only while its thread is parked, which it
// cannot be in between.
func (m *Mutex) Unlock() {
	if !m.state.CompareAndSwap(lockedBit, 0) {
		m.unlockSlow(false)
	}
	deadlockRelease(unsafe.Pointer(m))
}

// UnlockFair unlocks m and, if a thread is parked, hands the lock directly
// to it.
func (m *Mutex) UnlockFair() {
	if !m.state.CompareAndSwap(lockedBit, 0) {
		m.unlockSlow(true)
	}
	deadlockRelease(unsafe.Pointer(m))
}

// Bump temporarily yields m to a waiting thread, if there is one: a fair
// unlock followed by Lock. The caller holds m before and after.
func (m *Mutex) Bump() {
	if m.state.Load()&parkedBit != 0 {
		m.bumpSlow()
	}
}

// IsLocked reports whether m is held (racy by nature: for assertions).
func (m *Mutex) IsLocked() bool { return m.state.Load()&lockedBit != 0 }

// markParkedIfLocked sets parkedBit if m is locked and reports whether it
// was. Used by Condvar when requeuing threads onto m; must be called with
// the bucket lock of m held (it is, inside unpark_requeue's validate).
func (m *Mutex) markParkedIfLocked() bool {
	state := m.state.Load()
	for {
		if state&lockedBit == 0 {
			return false
		}
		if m.state.CompareAndSwap(state, state|parkedBit) {
			return true
		}
		state = m.state.Load()
	}
}

// markParked sets parkedBit. Used by Condvar after requeuing threads onto
// m; called with m's bucket lock held.
func (m *Mutex) markParked() { m.state.Or(parkedBit) }

// lockSlow is upstream's lock_slow; deadline zero means no timeout. It
// reports whether the lock was taken (false only on timeout).
func (m *Mutex) lockSlow(deadline time.Time) bool {
	var spin SpinWait
	state := m.state.Load()
	for {
		// Grab the lock if it isn't locked, even if there is a queue on it.
		if state&lockedBit == 0 {
			if m.state.CompareAndSwap(state, state|lockedBit) {
				return true
			}
			state = m.state.Load()
			continue
		}

		// If there is no queue, try spinning a few times.
		if state&parkedBit == 0 && spin.Spin() {
			state = m.state.Load()
			continue
		}

		// Set the parked bit.
		if state&parkedBit == 0 {
			if !m.state.CompareAndSwap(state, state|parkedBit) {
				state = m.state.Load()
				continue
			}
		}

		// Window: PARKED is set (by us or an earlier parker), we are not
		// queued yet; an unlock now must still reach us through validate.
		chaos.Point("lot.mutex.parkedbit")

		// Park our thread until an unlock wakes us. validate runs under the
		// bucket lock: if the state is still LOCKED|PARKED then the unlocker
		// has not yet taken the bucket lock to clear PARKED (it must, to
		// wake anyone), so it will find us in the queue.
		switch r := Park(unsafe.Pointer(m),
			func() bool { return m.state.Load() == lockedBit|parkedBit },
			nil,
			func(_ unsafe.Pointer, wasLast bool) {
				// Clear the parked bit if we were the last parked thread.
				if wasLast {
					m.state.And(^parkedBit)
				}
			},
			DefaultParkToken, deadline); r.Kind {
		case ParkUnparked:
			if r.Token == tokenHandoff {
				// The unlocker passed the lock on to us without unlocking.
				return true
			}
			// Unparked normally: try acquiring the lock again.
		case ParkInvalid:
			// The state changed before we were queued: try again.
		case ParkTimedOut:
			return false
		}

		// Loop back and try locking again.
		spin.Reset()
		state = m.state.Load()
	}
}

// unlockSlow is upstream's unlock_slow: unpark one thread, leaving
// parkedBit set if more might be parked.
func (m *Mutex) unlockSlow(forceFair bool) {
	if m.state.Load()&lockedBit == 0 {
		// Not upstream (lock_api's guards make this impossible there); as
		// sync.Mutex, refuse rather than corrupt the parked bit.
		panic("lot: unlock of unlocked Mutex")
	}
	UnparkOne(unsafe.Pointer(m), func(result UnparkResult) UnparkToken {
		// Window: bucket locked, the thread to wake (if any) unlinked but
		// not marked, the state not yet updated.
		chaos.Point("lot.mutex.unlockcb")
		// For a fair unlock, keep the mutex locked and hand it off to the
		// unparked thread.
		if result.UnparkedThreads != 0 && (forceFair || result.BeFair) {
			// Clear the parked bit if there are no more parked threads.
			if !result.HaveMoreThreads {
				m.state.Store(lockedBit)
			}
			return tokenHandoff
		}
		// Clear the locked bit, and the parked bit too if no more threads
		// are parked. We hold the bucket lock, so no thread can set
		// parkedBit and park unseen between this store and our return.
		if result.HaveMoreThreads {
			m.state.Store(parkedBit)
		} else {
			m.state.Store(0)
		}
		return tokenNormal
	})
}

func (m *Mutex) bumpSlow() {
	m.unlockSlow(true)
	deadlockRelease(unsafe.Pointer(m))
	m.Lock()
}
