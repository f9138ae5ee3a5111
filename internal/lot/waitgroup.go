package lot

import (
	"fmt"
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/chaos"
)

// WaitGroup is crossbeam-utils' WaitGroup (0.8.22): a group of handles;
// Wait blocks until every handle of the group is gone. It is not
// sync.WaitGroup: there is no Add(n). A new group holds one handle (count
// 1); Clone makes another; Done releases one (upstream: drop); Wait
// releases the caller's handle and waits until the count is zero.
//
// Go has no Drop: every handle, the one from NewWaitGroup and each Clone,
// must end with exactly one call to Done or Wait. A handle used twice
// panics (a cheap check upstream gets from ownership); a handle never
// released makes Wait block forever, as a leaked clone does upstream.
type WaitGroup struct {
	inner *wgInner
	// used is set by the handle's Done or Wait.
	used atomic.Bool
}

type wgInner struct {
	cvar Condvar
	lock Mutex
	// count is the number of live handles. Since crossbeam #1195 it is an
	// atomic outside the lock: the lock is only taken when the count
	// reaches zero, and in Wait.
	count atomic.Int64
}

// NewWaitGroup returns a group with one handle (count 1).
func NewWaitGroup() *WaitGroup {
	inner := &wgInner{}
	inner.count.Store(1)
	return &WaitGroup{inner: inner}
}

// Clone returns a new handle of the same group (fetch_add(1, Relaxed)).
// The receiver must still be live.
func (wg *WaitGroup) Clone() *WaitGroup {
	if wg.used.Load() {
		panic("lot: WaitGroup.Clone on a handle already released")
	}
	wg.inner.count.Add(1)
	return &WaitGroup{inner: wg.inner}
}

// Done releases this handle (upstream: drop). The last one to go wakes the
// waiters.
func (wg *WaitGroup) Done() {
	wg.release("Done")
	inner := wg.inner
	// fetch_sub(1, Release).
	if inner.count.Add(-1) == 0 {
		inner.wakeAll()
	}
}

// Wait releases this handle and blocks until every handle of the group is
// released (upstream: wait(self), which consumes the handle without
// running Drop).
func (wg *WaitGroup) Wait() {
	wg.release("Wait")
	inner := wg.inner
	// fetch_sub(1, AcqRel).
	if inner.count.Add(-1) == 0 {
		inner.wakeAll()
		return
	}
	inner.lock.Lock()
	for inner.count.Load() != 0 {
		inner.cvar.Wait(&inner.lock)
	}
	inner.lock.Unlock()
}

// wakeAll is run by whoever took the count to zero.
func (inner *wgInner) wakeAll() {
	// Take the lock after updating the count: a waiter is then either
	// before its count check under the lock (it will see zero) or already
	// queued on the condvar (its Wait unlocked the mutex only after
	// queueing), where the NotifyAll finds it. Without the lock, a waiter
	// that read a non-zero count could miss the notify.
	// Window: the count is 0, the lock not yet taken.
	chaos.Point("lot.waitgroup.zero")
	inner.lock.Lock()
	//lint:ignore SA2001 a barrier: see the comment above
	inner.lock.Unlock()
	inner.cvar.NotifyAll()
}

func (wg *WaitGroup) release(op string) {
	if wg.used.Swap(true) {
		panic("lot: WaitGroup." + op + " on a handle already released (each handle ends with exactly one Done or Wait)")
	}
}

// Count returns the number of live handles (upstream's Debug shows it).
func (wg *WaitGroup) Count() int { return int(wg.inner.count.Load()) }

// String formats like upstream's Debug: WaitGroup { count: N }.
func (wg *WaitGroup) String() string { return fmt.Sprintf("WaitGroup { count: %d }", wg.Count()) }
