//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// Ports of parking_lot src/remutex.rs's tests; every thread is a
// goroutine locked to its OS thread (participant, goThread), which is
// what ReentrantMutex's owner identity requires. test_serde has no
// counterpart.

func TestReentrantMutexSmoke(t *testing.T) {
	participant(t)
	var m ReentrantMutex
	m.Lock()
	m.Lock()
	m.Lock()
	if !m.IsOwnedByCurrentThread() || !m.IsLocked() {
		t.Fatal("not owned while locked three times")
	}
	m.Unlock()
	m.Unlock()
	if !m.IsLocked() {
		t.Fatal("released before the last Unlock")
	}
	m.Unlock()
	if m.IsLocked() || m.IsOwnedByCurrentThread() {
		t.Fatal("still locked after the last Unlock")
	}
}

// upstream is_mutex: another thread is kept out until every lock is
// released.
func TestReentrantMutexIsMutex(t *testing.T) {
	participant(t)
	var m ReentrantMutex
	sum := 0
	m.Lock()
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		if sum != 4950 {
			t.Errorf("sum %d, want 4950", sum)
		}
		m.Unlock()
	})
	for i := 0; i < 100; i++ {
		m.Lock()
		sum += i
		m.Unlock()
	}
	m.Unlock()
	waitTimeout(t, &wg, "second thread")
}

// upstream trylock_works.
func TestReentrantMutexTryLock(t *testing.T) {
	participant(t)
	var m ReentrantMutex
	if !m.TryLock() {
		t.Fatal("TryLock of a free ReentrantMutex failed")
	}
	if !m.TryLock() {
		t.Fatal("TryLock by the owner failed")
	}
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		if m.TryLock() {
			t.Error("TryLock by another thread succeeded")
		}
		if m.TryLockFor(time.Millisecond) || m.TryLockUntil(time.Now()) {
			t.Error("timed lock by another thread succeeded")
		}
	})
	waitTimeout(t, &wg, "other thread")
	if !m.TryLockFor(time.Millisecond) {
		t.Fatal("TryLockFor by the owner failed")
	}
	m.Unlock()
	m.Unlock()
	m.UnlockFair()
	if m.IsLocked() {
		t.Fatal("locked after every unlock")
	}
}

// upstream test_reentrant_mutex_debug.
func TestReentrantMutexString(t *testing.T) {
	var m ReentrantMutex
	if s := m.String(); s != "ReentrantMutex { .. }" {
		t.Errorf("String %q", s)
	}
}

// upstream test_reentrant_mutex_bump: bump until the other thread got in.
func TestReentrantMutexBump(t *testing.T) {
	participant(t)
	var m ReentrantMutex
	m.Lock()
	done := make(chan struct{})
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		m.Unlock()
		close(done)
	})
	for bumping := true; bumping; {
		select {
		case <-done:
			bumping = false
		default:
			m.Bump()
			if oneThread {
				// wasm: the other goroutine only runs when this one
				// yields.
				runtime.Gosched()
			}
		}
	}
	if !m.IsOwnedByCurrentThread() {
		t.Fatal("Bump lost ownership")
	}
	m.Unlock()
	waitTimeout(t, &wg, "other thread")
}

// Misuse: an Unlock by a thread that does not hold it panics and leaves
// the mutex as it was.
func TestReentrantMutexMisuse(t *testing.T) {
	participant(t)
	var m ReentrantMutex
	mustPanic := func(what string) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		m.Unlock()
	}
	mustPanic("Unlock of unlocked")
	m.Lock()
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		defer func() {
			if recover() == nil {
				t.Error("Unlock by another thread did not panic")
			}
		}()
		m.Unlock()
	})
	waitTimeout(t, &wg, "other thread")
	if !m.IsOwnedByCurrentThread() {
		t.Fatal("misuse changed the owner")
	}
	m.Unlock()
	if m.IsLocked() {
		t.Fatal("locked after unlock")
	}
}

// goroutineID is the thread identity where the OS gives none (wasm,
// darwin): it must be exact per goroutine and must not allocate, or every
// ReentrantMutex call there would.
func TestGoroutineID(t *testing.T) {
	me := goroutineID()
	other := make(chan uintptr)
	go func() { other <- goroutineID() }()
	if o := <-other; o == me || o == 0 || me == 0 {
		t.Fatalf("goroutine ids %d and %d, want distinct and non-zero", me, o)
	}
	if me != goroutineID() {
		t.Fatal("goroutineID changed within one goroutine")
	}
	if n := testing.AllocsPerRun(100, func() { goroutineID() }); n != 0 {
		t.Errorf("goroutineID: %v allocations per call, want 0", n)
	}
}
