package lot

import (
	"sync/atomic"
	"time"
)

// ReentrantMutex is parking_lot's ReentrantMutex (lock_api
// src/remutex.rs RawReentrantMutex over parking_lot's RawMutex, with
// src/remutex.rs RawThreadId): a Mutex that the thread holding it may lock
// again; it is released when every Lock has had its Unlock. The zero
// value is unlocked; it must not be copied after first use.
//
// The owner is the calling thread as threadID identifies it: on Linux the
// OS thread id, which names the thread only for a goroutine locked to its
// OS thread (runtime.LockOSThread; every parkbench participant is). An
// unlocked goroutine may be moved to another thread between Lock and a
// nested Lock (which then blocks forever on itself), and another goroutine
// later running on the owner's thread would be let in: do not use it from
// unlocked goroutines. Where the OS gives no thread id the goroutine id is
// used, which is exact for any goroutine.
//
// Misuse: Unlock by a thread that does not own it panics before touching
// the state (upstream's raw unlock is unsafe and unchecked; lock_api's
// guards make the misuse impossible there).
type ReentrantMutex struct {
	// owner is the owning thread's id, 0 when unowned. Written only by the
	// owner (after taking mutex, before releasing it); read by anyone: a
	// thread only ever finds its own id there if it is the owner.
	owner atomic.Uintptr
	// lockCount is touched only by the owner.
	lockCount uintptr
	mutex     Mutex
}

// lockInternal is upstream's lock_internal.
func (r *ReentrantMutex) lockInternal(id uintptr, tryLock func() bool) bool {
	if r.owner.Load() == id {
		if r.lockCount+1 == 0 {
			panic("lot: ReentrantMutex lock count overflow")
		}
		r.lockCount++
		return true
	}
	if !tryLock() {
		return false
	}
	r.owner.Store(id)
	r.lockCount = 1
	return true
}

// Lock locks r, or counts one more lock if the calling thread holds it.
func (r *ReentrantMutex) Lock() {
	r.lockInternal(threadID(), func() bool { r.mutex.Lock(); return true })
}

// TryLock locks r if it is free or held by the calling thread.
func (r *ReentrantMutex) TryLock() bool {
	return r.lockInternal(threadID(), r.mutex.TryLock)
}

// TryLockFor is Lock waiting at most d.
func (r *ReentrantMutex) TryLockFor(d time.Duration) bool {
	return r.lockInternal(threadID(), func() bool { return r.mutex.TryLockFor(d) })
}

// TryLockUntil is Lock waiting at most until deadline.
func (r *ReentrantMutex) TryLockUntil(deadline time.Time) bool {
	return r.lockInternal(threadID(), func() bool { return r.mutex.TryLockUntil(deadline) })
}

// Unlock undoes one Lock; the last one releases r.
func (r *ReentrantMutex) Unlock() { r.unlock(false) }

// UnlockFair is Unlock; the last one hands r to a parked thread, if any.
func (r *ReentrantMutex) UnlockFair() { r.unlock(true) }

func (r *ReentrantMutex) unlock(fair bool) {
	if r.owner.Load() != threadID() || r.lockCount == 0 {
		panic("lot: unlock of ReentrantMutex not held by this thread")
	}
	r.lockCount--
	if r.lockCount == 0 {
		r.owner.Store(0)
		if fair {
			r.mutex.UnlockFair()
		} else {
			r.mutex.Unlock()
		}
	}
}

// Bump yields r to a parked thread if the caller holds it exactly once
// (upstream bump: a nested hold is kept).
func (r *ReentrantMutex) Bump() {
	if r.lockCount == 1 {
		id := r.owner.Load()
		r.owner.Store(0)
		r.lockCount = 0
		r.mutex.Bump()
		r.owner.Store(id)
		r.lockCount = 1
	}
}

// IsLocked reports whether any thread holds r (racy: for assertions).
func (r *ReentrantMutex) IsLocked() bool { return r.mutex.IsLocked() }

// IsOwnedByCurrentThread reports whether the calling thread holds r.
func (r *ReentrantMutex) IsOwnedByCurrentThread() bool { return r.owner.Load() == threadID() }

// String gives lock_api's Debug text without the data.
func (r *ReentrantMutex) String() string { return "ReentrantMutex { .. }" }
