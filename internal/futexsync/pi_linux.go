package futexsync

import (
	"fmt"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// PIMutex is a priority-inheriting mutex on FUTEX_LOCK_PI/FUTEX_UNLOCK_PI,
// as glibc's PTHREAD_PRIO_INHERIT mutex (nptl/pthread_mutex_lock.c,
// PTHREAD_MUTEX_PI_NORMAL_NP): the word is 0 when free, else the owner's
// kernel TID, with futex.PIWaiters set by the kernel while a thread waits.
// The zero value is unlocked.
//
//   - Lock: a CAS of 0 -> TID in user space takes a free lock without
//     the kernel. Any other value goes to FUTEX_LOCK_PI, which (under the
//     futex's hash-bucket lock and the owner's rt_mutex wait_lock) takes
//     the word if it became 0, else sets PIWaiters, queues the caller by
//     priority and boosts the owner. It returns with the word holding the
//     caller's TID (plus PIWaiters if others still wait).
//   - Unlock: a CAS of TID -> 0 releases a lock nobody waits for. If it
//     fails, PIWaiters is set (only the kernel sets it, and only the owner
//     clears the word), and FUTEX_UNLOCK_PI hands the lock to the top
//     waiter.
//
// No missed wakeup: a waiter is queued only after the kernel set
// PIWaiters in the word, atomically with its check that the lock is held;
// from then on the owner's CAS TID -> 0 fails (the word is TID|PIWaiters)
// and its unlock enters the kernel, which finds the queued waiter.
// models/pifutex.pml checks this protocol with spin (mutual exclusion, no
// waiter asleep for ever), and that a plain-store unlock, a fast-path
// unlock that ignores PIWaiters, or a non-atomic fast path break it.
//
// The kernel checks ownership by TID: the goroutine must stay on its OS
// thread (runtime.LockOSThread) from Lock to Unlock, as every parkbench
// participant does. Unlock from another thread of a contended lock panics
// with EPERM.
type PIMutex struct {
	state atomic.Uint32
	_     [60]byte
}

// Lock acquires m; it reads the caller's TID with a system call (see
// LockTID for callers that know it).
func (m *PIMutex) Lock() { m.LockTID(futex.Gettid()) }

// LockTID acquires m for the calling thread, whose kernel TID is tid.
func (m *PIMutex) LockTID(tid uint32) {
	if !m.state.CompareAndSwap(0, tid) {
		m.lockSlow(tid)
	}
}

// TryLockTID acquires m if it is free (user space only, as glibc's
// pthread_mutex_trylock for a free PI mutex).
func (m *PIMutex) TryLockTID(tid uint32) bool { return m.state.CompareAndSwap(0, tid) }

func (m *PIMutex) lockSlow(tid uint32) {
	for {
		switch e := futex.LockPI(&m.state); e {
		case 0:
			// The kernel wrote our TID into the word; this atomic load is
			// the acquire that pairs with the releasing owner's atomic
			// store in Unlock (the kernel's own ordering is invisible to
			// Go's memory model and the race detector).
			m.state.Load()
			return
		case unix.EINTR, unix.EAGAIN:
			// EAGAIN: the owner is exiting (the kernel's exit path owns the
			// word for a moment); retry as glibc does.
			continue
		default:
			panic(fmt.Sprintf("futexsync: FUTEX_LOCK_PI by TID %d on word %#x: %v", tid, m.state.Load(), e))
		}
	}
}

// Unlock releases m. Only the owner may call it.
func (m *PIMutex) Unlock() {
	// The word holds our TID, with PIWaiters (the top bit) if the kernel
	// queued a waiter: below PIWaiters means no waiter, and the CAS fails
	// if the kernel set it since the load.
	if s := m.state.Load(); s >= futex.PIWaiters || !m.state.CompareAndSwap(s, 0) {
		m.unlockSlow()
	}
}

// UnlockTID releases m, held by the calling thread whose TID is tid: one
// CAS TID -> 0 (glibc's __pthread_mutex_unlock_full for a PI mutex), which
// fails if the kernel set PIWaiters, and then FUTEX_UNLOCK_PI. Inlinable,
// where Unlock's load and CAS are not.
func (m *PIMutex) UnlockTID(tid uint32) {
	if !m.state.CompareAndSwap(tid, 0) {
		m.unlockSlow()
	}
}

// unlockSlow is Unlock's kernel path (a function of its own, so Unlock's
// fast path inlines into the caller's loop as std-futex's does; see UnlockTID).
func (m *PIMutex) unlockSlow() {
	// An atomic read-modify-write that changes nothing, as the release
	// half of the handoff (see lockSlow): everything the owner wrote under
	// the lock happens before the next owner's return from FUTEX_LOCK_PI.
	m.state.Add(0)
	if e := futex.UnlockPI(&m.state); e != 0 {
		panic(fmt.Sprintf("futexsync: FUTEX_UNLOCK_PI on word %#x: %v (unlocked by a thread that is not the owner?)", m.state.Load(), e))
	}
}

// Owner is the TID in the word (0: free) and whether a waiter is queued.
func (m *PIMutex) Owner() (tid uint32, waiters bool) {
	s := m.state.Load()
	return s & futex.PITidMask, s&futex.PIWaiters != 0
}
