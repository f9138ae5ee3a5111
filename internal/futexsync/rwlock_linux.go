//go:build linux

package futexsync

import (
	"sync/atomic"
	"unsafe"

	"github.com/parkbench/parkbench/internal/futex"
)

// RwLock is Rust std's Linux futex reader-writer lock
// (library/std/src/sys/sync/rwlock/futex.rs, read at rust-lang/rust
// 0787e05), for `parkbench rwlock` to compare with lot's RwLock
// and sync.RWMutex. The zero value is unlocked.
//
// Two futex words. state holds a 30-bit count (0 unlocked, 1..MAX_READERS
// readers, WRITE_LOCKED = 0x3fff_ffff a writer) and two flags: bit 30
// READERS_WAITING (readers sleep on state) and bit 31 WRITERS_WAITING
// (writers sleep on writerNotify, a counter bumped on every writer wake).
//
// Writer priority, as std: a reader does not lock while any thread waits
// (either flag set), so a steady read load cannot starve writers; an
// unlock wakes one writer if writers wait, and all readers only when no
// writer waits (or none was actually asleep to be woken).
//
// No missed wakeup: a reader sleeps only on a state value that has
// READERS_WAITING set, and every unlock that leaves the lock free with a
// flag set goes through wakeWriterOrReaders, which clears the flag with a
// CAS before waking (FUTEX_WAIT compares the word under the kernel's
// bucket lock, so a reader whose value went stale does not sleep). A
// writer reads the writerNotify sequence before it re-checks the state, so
// a wakeWriter (fetch_add, then FUTEX_WAKE) after that check makes its
// FUTEX_WAIT return at once.
//
// Misuse (unlocking what is not held) is undefined, as in std, where the
// unlocks are unsafe fns: it is not checked, so as to measure std's code.
type RwLock struct {
	state atomic.Uint32
	// writerNotify is the "condition variable" writers sleep on.
	writerNotify atomic.Uint32
}

const (
	rwReadLocked     uint32 = 1
	rwMask           uint32 = 1<<30 - 1
	rwWriteLocked    uint32 = rwMask
	rwMaxReaders     uint32 = rwMask - 1
	rwReadersWaiting uint32 = 1 << 30
	rwWritersWaiting uint32 = 1 << 31
)

func rwIsUnlocked(s uint32) bool        { return s&rwMask == 0 }
func rwIsWriteLocked(s uint32) bool     { return s&rwMask == rwWriteLocked }
func rwHasReadersWaiting(s uint32) bool { return s&rwReadersWaiting != 0 }
func rwHasWritersWaiting(s uint32) bool { return s&rwWritersWaiting != 0 }

// rwIsReadLockable is false also when the count could overflow, and while
// any thread waits: after an unlock the unlocking thread may be waking
// writers, which have priority over readers.
func rwIsReadLockable(s uint32) bool {
	return s&rwMask < rwMaxReaders && !rwHasReadersWaiting(s) && !rwHasWritersWaiting(s)
}

// word32 is a futex word: the kernel compares 32 bits, whatever Go's type.
func word32(p *atomic.Uint32) *atomic.Int32 { return (*atomic.Int32)(unsafe.Pointer(p)) }

// TryRLock read-locks rw if it can without waiting.
func (rw *RwLock) TryRLock() bool {
	for {
		s := rw.state.Load()
		if !rwIsReadLockable(s) {
			return false
		}
		if rw.state.CompareAndSwap(s, s+rwReadLocked) {
			return true
		}
	}
}

// RLock read-locks rw.
func (rw *RwLock) RLock() {
	s := rw.state.Load()
	if !rwIsReadLockable(s) || !rw.state.CompareAndSwap(s, s+rwReadLocked) {
		rw.readContended()
	}
}

// RUnlock releases a read lock; the last reader wakes a waiting writer.
func (rw *RwLock) RUnlock() {
	s := rw.state.Add(^(rwReadLocked - 1))
	// It's impossible for a reader to be waiting on a read-locked RwLock,
	// except if there is also a writer waiting. Wake up a writer if we
	// were the last reader and there's a writer waiting.
	if rwIsUnlocked(s) && rwHasWritersWaiting(s) {
		rw.wakeWriterOrReaders(s)
	}
}

func (rw *RwLock) readContended() {
	s := rw.spinRead()
	for {
		// If we can lock it, lock it.
		if rwIsReadLockable(s) {
			if rw.state.CompareAndSwap(s, s+rwReadLocked) {
				return
			}
			s = rw.state.Load()
			continue
		}
		// Check for overflow.
		if s&rwMask == rwMaxReaders {
			panic("too many active read locks on RwLock")
		}
		// Make sure the readers waiting bit is set before we go to sleep.
		if !rwHasReadersWaiting(s) {
			if !rw.state.CompareAndSwap(s, s|rwReadersWaiting) {
				s = rw.state.Load()
				continue
			}
		}
		// Wait for the state to change.
		futex.Wait(word32(&rw.state), int32(s|rwReadersWaiting), nil)
		// Spin again after waking up.
		s = rw.spinRead()
	}
}

// TryLock write-locks rw if it is unlocked.
func (rw *RwLock) TryLock() bool {
	for {
		s := rw.state.Load()
		if !rwIsUnlocked(s) {
			return false
		}
		if rw.state.CompareAndSwap(s, s+rwWriteLocked) {
			return true
		}
	}
}

// Lock write-locks rw.
func (rw *RwLock) Lock() {
	if !rw.state.CompareAndSwap(0, rwWriteLocked) {
		rw.writeContended()
	}
}

// Unlock releases the write lock, waking a writer or the readers.
func (rw *RwLock) Unlock() {
	s := rw.state.Add(^(rwWriteLocked - 1))
	if rwHasWritersWaiting(s) || rwHasReadersWaiting(s) {
		rw.wakeWriterOrReaders(s)
	}
}

func (rw *RwLock) writeContended() {
	s := rw.spinWrite()
	otherWritersWaiting := uint32(0)
	for {
		// If it's unlocked, we try to lock it.
		if rwIsUnlocked(s) {
			if rw.state.CompareAndSwap(s, s|rwWriteLocked|otherWritersWaiting) {
				return
			}
			s = rw.state.Load()
			continue
		}
		// Set the waiting bit indicating that we're waiting on it.
		if !rwHasWritersWaiting(s) {
			if !rw.state.CompareAndSwap(s, s|rwWritersWaiting) {
				s = rw.state.Load()
				continue
			}
		}
		// Other writers might be waiting now too, so we should make sure
		// we keep that bit on once we manage to lock it.
		otherWritersWaiting = rwWritersWaiting

		// Examine the notification counter before we check if the state
		// has changed, to make sure we don't miss any notifications.
		seq := rw.writerNotify.Load()

		// Don't go to sleep if the lock has become available, or if the
		// writers waiting bit is no longer set.
		s = rw.state.Load()
		if rwIsUnlocked(s) || !rwHasWritersWaiting(s) {
			continue
		}
		// Wait for the state to change.
		futex.Wait(word32(&rw.writerNotify), int32(seq), nil)
		// Spin again after waking up.
		s = rw.spinWrite()
	}
}

// wakeWriterOrReaders wakes waiting threads after an unlock: one writer
// if writers wait, falling back to the readers if no writer was asleep.
func (rw *RwLock) wakeWriterOrReaders(s uint32) {
	if !rwIsUnlocked(s) {
		panic("futexsync: RwLock woke waiters while locked")
	}
	// The readers waiting bit might be turned on at any point now, since
	// readers will block when there's anything waiting. Writers will just
	// lock the lock though, regardless of the waiting bits, so we don't
	// have to worry about the writer waiting bit. If the lock gets locked
	// meanwhile, its new holder will wake the waiters when it unlocks.

	// If only writers are waiting, wake one of them up.
	if s == rwWritersWaiting {
		if rw.state.CompareAndSwap(s, 0) {
			rw.wakeWriter()
			return
		}
		// Maybe some readers are now waiting too: go on to the next case.
		s = rw.state.Load()
	}

	// If both writers and readers are waiting, leave the readers waiting
	// and only wake up one writer.
	if s == rwReadersWaiting|rwWritersWaiting {
		if !rw.state.CompareAndSwap(s, rwReadersWaiting) {
			// The lock got locked. Not our problem anymore.
			return
		}
		if rw.wakeWriter() {
			return
		}
		// No writers were actually blocked on futex_wait, so wake the
		// readers instead: we can't be sure we notified a writer.
		s = rwReadersWaiting
	}

	// If readers are waiting, wake them all up.
	if s == rwReadersWaiting {
		if rw.state.CompareAndSwap(s, 0) {
			futexWakeN(word32(&rw.state), wakeAll)
		}
	}
}

// wakeWriter wakes one writer and reports whether one was asleep in
// FUTEX_WAIT (false may still have notified one about to sleep).
func (rw *RwLock) wakeWriter() bool {
	rw.writerNotify.Add(1)
	return futexWakeN(word32(&rw.writerNotify), 1) > 0
}

// spinUntil spins (std: 100 rounds) until f holds, returning the state.
func (rw *RwLock) spinUntil(f func(uint32) bool) uint32 {
	for n := spinLimit; ; n-- {
		s := rw.state.Load()
		if f(s) || n == 0 {
			return s
		}
	}
}

// spinWrite stops when it's unlocked or when writers wait, to keep things
// somewhat fair.
func (rw *RwLock) spinWrite() uint32 {
	return rw.spinUntil(func(s uint32) bool { return rwIsUnlocked(s) || rwHasWritersWaiting(s) })
}

// spinRead stops when it's unlocked or read locked, or when threads wait.
func (rw *RwLock) spinRead() uint32 {
	return rw.spinUntil(func(s uint32) bool {
		return !rwIsWriteLocked(s) || rwHasReadersWaiting(s) || rwHasWritersWaiting(s)
	})
}
