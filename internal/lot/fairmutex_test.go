//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"sync"
	"testing"
	"time"
)

// Ports of parking_lot src/fair_mutex.rs's tests. test_into_inner,
// test_into_inner_drop, test_get_mut, test_mutex_unsized,
// test_mutexguard_sync and test_serde test the Mutex<T> wrapper's data
// handling, which has no counterpart on a raw lock.

func TestFairMutexSmoke(t *testing.T) {
	participant(t)
	var m FairMutex
	m.Lock()
	m.Unlock()
	m.Lock()
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("TryLock of a free FairMutex failed") // upstream try_lock
	}
	if m.TryLock() || m.TryLockFor(time.Millisecond) || m.TryLockUntil(time.Now()) {
		t.Fatal("second lock of a held FairMutex succeeded")
	}
	m.Bump()
	m.UnlockFair()
	if m.IsLocked() {
		t.Fatal("locked after unlock")
	}
}

// upstream lots_and_lots: 2K threads, J increments each.
func TestFairMutexLotsAndLots(t *testing.T) {
	participant(t)
	j := scale(1000, 200)
	const k = 3
	var m FairMutex
	cnt := 0
	var wg sync.WaitGroup
	for i := 0; i < 2*k; i++ {
		goThread(t, &wg, func() {
			for n := 0; n < j; n++ {
				m.Lock()
				cnt++
				m.Unlock()
			}
		})
	}
	waitTimeout(t, &wg, "incrementers")
	m.Lock()
	if cnt != j*k*2 {
		t.Errorf("count %d, want %d", cnt, j*k*2)
	}
	m.Unlock()
}

// Every unlock of a contended FairMutex hands the lock over: the unlocker
// cannot take it back at once (TryLock fails right after Unlock while a
// thread is parked).
func TestFairMutexHandsOff(t *testing.T) {
	participant(t)
	var m FairMutex
	m.Lock()
	var wg sync.WaitGroup
	release := make(chan struct{})
	goThread(t, &wg, func() { m.Lock(); <-release; m.Unlock() })
	until(t, "locker parked", func() bool { return numParked(ptrOf(&m.m)) == 1 })
	m.Unlock()
	if m.TryLock() {
		t.Fatal("FairMutex.Unlock did not hand the lock to the parked thread")
	}
	close(release)
	waitTimeout(t, &wg, "locker")
}

// upstream test_mutex_arc_nested: a FairMutex taken inside another.
func TestFairMutexNested(t *testing.T) {
	participant(t)
	var outer, inner FairMutex
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		outer.Lock()
		inner.Lock()
		inner.Unlock()
		outer.Unlock()
	})
	waitTimeout(t, &wg, "nested")
}

// upstream test_mutex_arc_access_in_unwind: a deferred lock during a
// panic works, and the panic leaves the mutex usable.
func TestFairMutexAccessInUnwind(t *testing.T) {
	participant(t)
	var m FairMutex
	val := 1
	func() {
		defer func() { _ = recover() }()
		defer func() { m.Lock(); val++; m.Unlock() }()
		panic("boom")
	}()
	m.Lock()
	if val != 2 {
		t.Errorf("val %d, want 2", val)
	}
	m.Unlock()
}

// upstream test_mutex_debug.
func TestFairMutexString(t *testing.T) {
	var m FairMutex
	if s := m.String(); s != "Mutex { .. }" {
		t.Errorf("String %q", s)
	}
	m.Lock()
	if s := m.String(); s != "Mutex { data: <locked> }" {
		t.Errorf("String %q", s)
	}
	m.Unlock()
}
