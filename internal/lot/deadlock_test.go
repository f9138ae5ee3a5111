//go:build lotdeadlock

//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// Ports of parking_lot src/deadlock.rs's tests, run with -tags
// lotdeadlock. Go runs a package's tests one at a time unless they call
// t.Parallel, which upstream's DEADLOCK_DETECTION_LOCK stands in for.
// Upstream's sleep(50ms) before the check becomes a wait until each
// thread is parked. Deadlocked threads stay parked for good, as upstream.

// With the detector every lock and unlock looks up the goroutine's record
// (a read lock on the records' map) and takes the record's mutex (where
// goroutineKey falls back to runtime.Stack, about 4 µs more); the
// package's heavier tests (TestCondvarQueue over every backend) take
// longer, so the watchdogs are scaled to match.
func init() { watchdogTimeout *= 4 }

// goStuck starts fn on a thread that will deadlock: never joined.
func goStuck(fn func()) {
	go func() {
		runtime.LockOSThread()
		fn()
		panic("lot test: a deadlocked thread returned")
	}()
}

// goStuckPlain is goStuck on a goroutine not locked to its thread.
func goStuckPlain(fn func()) {
	go func() {
		fn()
		panic("lot test: a deadlocked goroutine returned")
	}()
}

// heldKeys is the calling goroutine's record: the keys it holds.
func heldKeys() []unsafe.Pointer {
	d, _ := deadlockRecord(false)
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.resources)
}

// heldKeyCount is len(heldKeys()); deadlock_off_test.go has it as 0.
func heldKeyCount() int { return len(heldKeys()) }

// barrier is upstream's Barrier::new(n).wait().
type barrier struct{ wg sync.WaitGroup }

func newBarrier(n int) *barrier { b := &barrier{}; b.wg.Add(n); return b }
func (b *barrier) wait()        { b.wg.Done(); b.wg.Wait() }

// expectDeadlocks checks CheckDeadlock reports cycles of the given sizes
// once, with stacks, and nothing on the next call.
func expectDeadlocks(t *testing.T, sizes ...int) {
	t.Helper()
	got := CheckDeadlock()
	if len(got) != len(sizes) {
		t.Fatalf("%d deadlocks, want %d", len(got), len(sizes))
	}
	for i, c := range got {
		if len(c) != sizes[i] {
			t.Errorf("deadlock %d has %d threads, want %d", i, len(c), sizes[i])
		}
		ids := map[uintptr]bool{}
		for _, th := range c {
			ids[th.GoroutineID] = true
			if th.ThreadID == 0 || th.GoroutineID == 0 {
				t.Errorf("thread %d, goroutine %d: an id is zero", th.ThreadID, th.GoroutineID)
			}
			if !strings.Contains(th.Stack, "internal/lot.") {
				t.Errorf("goroutine %d: stack without lot frames:\n%s", th.GoroutineID, th.Stack)
			}
		}
		if len(ids) != len(c) {
			t.Errorf("deadlock %d: goroutine ids %v not distinct", i, ids)
		}
	}
	if again := CheckDeadlock(); len(again) != 0 {
		t.Fatalf("deadlock reported twice: %d", len(again))
	}
}

func parkedOn(t *testing.T, keys ...unsafe.Pointer) {
	t.Helper()
	until(t, "threads parked", func() bool {
		for _, k := range keys {
			if numParked(k) != 1 {
				return false
			}
		}
		return true
	})
}

// upstream test_mutex_deadlock: three threads, each holding one mutex
// and waiting for the next.
func TestDeadlockMutex(t *testing.T) {
	participant(t)
	var m1, m2, m3 Mutex
	b := newBarrier(4)
	if len(CheckDeadlock()) != 0 {
		t.Fatal("deadlock before any lock")
	}
	goStuck(func() { m1.Lock(); b.wait(); m2.Lock() })
	goStuck(func() { m2.Lock(); b.wait(); m3.Lock() })
	goStuck(func() { m3.Lock(); b.wait(); m1.Lock() })
	if len(CheckDeadlock()) != 0 {
		t.Fatal("deadlock before the threads wait")
	}
	b.wait()
	parkedOn(t, ptrOf(&m1), ptrOf(&m2), ptrOf(&m3))
	expectDeadlocks(t, 3)
}

// upstream test_mutex_deadlock_reentrant: locking a held Mutex again.
func TestDeadlockMutexReentrant(t *testing.T) {
	participant(t)
	var m1 Mutex
	goStuck(func() { m1.Lock(); m1.Lock() })
	parkedOn(t, ptrOf(&m1))
	expectDeadlocks(t, 1)
}

// upstream test_remutex_deadlock: re-entered ReentrantMutexes in a cycle.
func TestDeadlockReentrantMutex(t *testing.T) {
	participant(t)
	var m1, m2, m3 ReentrantMutex
	b := newBarrier(4)
	goStuck(func() { m1.Lock(); m1.Lock(); b.wait(); m2.Lock() })
	goStuck(func() { m2.Lock(); m2.Lock(); b.wait(); m3.Lock() })
	goStuck(func() { m3.Lock(); m3.Lock(); b.wait(); m1.Lock() })
	if len(CheckDeadlock()) != 0 {
		t.Fatal("deadlock before the threads wait")
	}
	b.wait()
	parkedOn(t, ptrOf(&m1.mutex), ptrOf(&m2.mutex), ptrOf(&m3.mutex))
	expectDeadlocks(t, 3)
}

// upstream test_rwlock_deadlock: each thread reads one lock and writes
// the next; the writers wait for the readers on the writer queues.
func TestDeadlockRwLock(t *testing.T) {
	participant(t)
	var m1, m2, m3 RwLock
	b := newBarrier(4)
	goStuck(func() { m1.RLock(); b.wait(); m2.Lock() })
	goStuck(func() { m2.RLock(); b.wait(); m3.Lock() })
	goStuck(func() { m3.RLock(); b.wait(); m1.Lock() })
	if len(CheckDeadlock()) != 0 {
		t.Fatal("deadlock before the threads wait")
	}
	b.wait()
	parkedOn(t, m1.writerQKey(), m2.writerQKey(), m3.writerQKey())
	expectDeadlocks(t, 3)
}

// upstream test_rwlock_deadlock_reentrant (disabled upstream,
// cfg(rwlock_deadlock_detection_not_supported)): a reader asking to
// write waits on the writer queue for itself. Found here, since the
// reader holds both keys.
func TestDeadlockRwLockReentrant(t *testing.T) {
	participant(t)
	var m1 RwLock
	goStuck(func() { m1.RLock(); m1.Lock() })
	parkedOn(t, m1.writerQKey())
	expectDeadlocks(t, 1)
}

// Recursive write locking of the non-reentrant RwLock, a misuse: the
// second Lock parks on the main queue of a lock it holds.
func TestDeadlockRwLockRecursiveWrite(t *testing.T) {
	participant(t)
	var m1 RwLock
	goStuck(func() { m1.Lock(); m1.Lock() })
	parkedOn(t, m1.mainKey())
	expectDeadlocks(t, 1)
}

// A thread parked with a timeout is not deadlocked (upstream skips
// parked_with_timeout); it is also left alone to time out.
func TestDeadlockIgnoresTimedWaits(t *testing.T) {
	participant(t)
	var m Mutex
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		if m.TryLockFor(300 * time.Millisecond) {
			t.Error("relocked a held Mutex")
		}
		m.Unlock()
	})
	until(t, "timed waiter parked", func() bool { return numParked(ptrOf(&m)) == 1 || !m.IsLocked() })
	if d := CheckDeadlock(); len(d) != 0 {
		t.Fatalf("timed wait reported as %d deadlocks", len(d))
	}
	waitTimeout(t, &wg, "timed waiter")
}

// Resources are tracked across lock kinds: held lists empty after
// balanced use, so a correct program never looks deadlocked.
func TestDeadlockBalanced(t *testing.T) {
	participant(t)
	var m Mutex
	var rw RwLock
	var f FairMutex
	var r ReentrantMutex
	m.Lock()
	rw.RLock()
	rw.RUnlock()
	rw.LockUpgradable()
	rw.Upgrade()
	rw.Downgrade()
	rw.RUnlock()
	f.Lock()
	r.Lock()
	r.Lock()
	r.Unlock()
	r.Unlock()
	f.Unlock()
	m.Unlock()
	if n := heldKeyCount(); n != 0 {
		t.Fatalf("%d resources still held", n)
	}
}

// goroutineKey names one goroutine: the same on every call, whichever
// thread it runs on, and different for goroutines alive at once.
func TestDeadlockGoroutineKey(t *testing.T) {
	participant(t)
	const n = 64
	keys := make(chan [2]uintptr, n)
	var wg sync.WaitGroup
	hold := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := goroutineKey()
			for j := 0; j < 100; j++ {
				runtime.Gosched() // may move to another thread
			}
			keys <- [2]uintptr{k, goroutineKey()}
			<-hold // alive until every key is in
		}()
	}
	seen := map[uintptr]bool{goroutineKey(): true}
	for i := 0; i < n; i++ {
		k := recvTimeout(t, keys, "a goroutine's key")
		if k[0] != k[1] {
			t.Errorf("a goroutine's key changed: %#x -> %#x", k[0], k[1])
		}
		if k[0] == 0 || seen[k[0]] {
			t.Errorf("key %#x zero or shared by two live goroutines", k[0])
		}
		seen[k[0]] = true
	}
	close(hold)
	waitTimeout(t, &wg, "the goroutines")
}

// upstream test_mutex_deadlock on goroutines not locked to their threads:
// the records follow the goroutines, whichever thread they run on.
func TestDeadlockMutexPlainGoroutines(t *testing.T) {
	participant(t)
	var m1, m2, m3 Mutex
	b := newBarrier(4)
	goStuckPlain(func() { m1.Lock(); runtime.Gosched(); b.wait(); m2.Lock() })
	goStuckPlain(func() { m2.Lock(); runtime.Gosched(); b.wait(); m3.Lock() })
	goStuckPlain(func() { m3.Lock(); runtime.Gosched(); b.wait(); m1.Lock() })
	if len(CheckDeadlock()) != 0 {
		t.Fatal("deadlock before the goroutines wait")
	}
	b.wait()
	parkedOn(t, ptrOf(&m1), ptrOf(&m2), ptrOf(&m3))
	expectDeadlocks(t, 3)
}

// upstream test_rwlock_deadlock on plain goroutines.
func TestDeadlockRwLockPlainGoroutines(t *testing.T) {
	participant(t)
	var m1, m2, m3 RwLock
	b := newBarrier(4)
	goStuckPlain(func() { m1.RLock(); runtime.Gosched(); b.wait(); m2.Lock() })
	goStuckPlain(func() { m2.RLock(); runtime.Gosched(); b.wait(); m3.Lock() })
	goStuckPlain(func() { m3.RLock(); runtime.Gosched(); b.wait(); m1.Lock() })
	b.wait()
	parkedOn(t, m1.writerQKey(), m2.writerQKey(), m3.writerQKey())
	expectDeadlocks(t, 3)
}

// A recovered misuse leaves the detector's record as it was: the checks
// come before the release (rwlock.go, mutex.go). The lock the goroutine
// still holds stays recorded, so a deadlock through it is still found.
func TestDeadlockMisuseKeepsRecord(t *testing.T) {
	participant(t)
	for _, tc := range []struct {
		hold, what string
	}{
		{"read", "Unlock"},
		{"read", "UnlockFair"},
		{"read", "UnlockUpgradable"},
		{"read", "UnlockUpgradableFair"},
		{"write", "RUnlock"},
		{"write", "UnlockUpgradable"},
		{"upgradable", "RUnlock"},
		{"upgradable", "Unlock"},
	} {
		var l RwLock
		rwAcquire(&l, tc.hold)
		before := heldKeys()
		mustPanic(t, tc.hold+"/"+tc.what, func() { rwMisuseCall[tc.what](&l) })
		if after := heldKeys(); !slices.Equal(after, before) {
			t.Errorf("%s/%s: the refused misuse changed the record %v -> %v", tc.hold, tc.what, before, after)
		}
		rwRelease(&l, tc.hold)
		if n := heldKeyCount(); n != 0 {
			t.Errorf("%s/%s: %d keys recorded after the release", tc.hold, tc.what, n)
		}
	}
	// Mutex: an Unlock of an unlocked Mutex while the goroutine holds
	// another one changes nothing.
	var m, other Mutex
	m.Lock()
	before := heldKeys()
	mustPanic(t, "Mutex.Unlock of an unlocked mutex", other.Unlock)
	if after := heldKeys(); !slices.Equal(after, before) {
		t.Errorf("Mutex: the refused misuse changed the record %v -> %v", before, after)
	}
	m.Unlock()

	// Found through a lock still held after a recovered misuse: the
	// reader's refused Unlock must not make the detector forget its read,
	// on which its own Lock then waits.
	var rw RwLock
	goStuck(func() {
		rw.RLock()
		func() {
			defer func() { _ = recover() }()
			rw.Unlock()
		}()
		rw.Lock()
	})
	parkedOn(t, rw.writerQKey())
	expectDeadlocks(t, 1)
}
