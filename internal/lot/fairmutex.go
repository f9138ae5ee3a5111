package lot

import "time"

// FairMutex is parking_lot's RawFairMutex (parking_lot
// src/raw_fair_mutex.rs): a Mutex whose every unlock is fair, handing the
// lock directly to the thread parked longest, if any. It trades
// throughput for strict FIFO hand-over under contention. The zero value
// is unlocked; it implements sync.Locker and must not be copied after
// first use.
type FairMutex struct {
	m Mutex
}

// Lock locks f, parking the thread while it is held.
func (f *FairMutex) Lock() { f.m.Lock() }

// TryLock locks f if it is not held.
func (f *FairMutex) TryLock() bool { return f.m.TryLock() }

// TryLockFor locks f, waiting at most d.
func (f *FairMutex) TryLockFor(d time.Duration) bool { return f.m.TryLockFor(d) }

// TryLockUntil locks f, waiting at most until deadline.
func (f *FairMutex) TryLockUntil(deadline time.Time) bool { return f.m.TryLockUntil(deadline) }

// Unlock unlocks f fairly (upstream: unlock is unlock_fair).
func (f *FairMutex) Unlock() { f.m.UnlockFair() }

// UnlockFair is Unlock.
func (f *FairMutex) UnlockFair() { f.m.UnlockFair() }

// Bump yields f to a parked thread, if any, and takes it back.
func (f *FairMutex) Bump() { f.m.Bump() }

// IsLocked reports whether f is held (racy: for assertions).
func (f *FairMutex) IsLocked() bool { return f.m.IsLocked() }

// String gives lock_api's Debug text without the data.
func (f *FairMutex) String() string {
	if f.IsLocked() {
		return "Mutex { data: <locked> }"
	}
	return "Mutex { .. }"
}
