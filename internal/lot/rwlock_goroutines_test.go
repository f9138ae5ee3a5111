//lint:file-ignore SA2001 empty lock/unlock pairs exercise the lock itself

package lot

import (
	"runtime"
	"sync"
	"testing"
)

// The RwLock on goroutines that are not locked to their OS threads, as a
// Go program would use it: they may move between threads between a lock
// and its unlock, and share threads one after another. Run with and
// without -tags lotdeadlock, whose detector keys its records by goroutine
// for that reason (deadlock_on.go); without the tag heldKeyCount is 0.

// goPlain runs fn on a plain goroutine; a panic fails the test instead of
// the binary; wg.Done when fn returns.
func goPlain(t testing.TB, wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("goroutine panicked: %v", r)
			}
		}()
		fn()
		if n := heldKeyCount(); n != 0 {
			t.Errorf("the detector still records %d keys for a goroutine that released everything", n)
		}
	}()
}

// TestRwLockGoHammerGoroutines is Go's TestRWMutex on plain goroutines:
// its HammerRWMutex matrix, 1000 iterations each. Under -tags lotdeadlock
// the detector used to key its records by OS thread: goroutines sharing
// a thread's record panicked inside it ("index out of range [3] with
// length 3"), leaving the lock held and the test stalled, or kept keys
// released on another thread (goPlain checks heldKeyCount).
func TestRwLockGoHammerGoroutines(t *testing.T) {
	participant(t)
	n := 1000
	if testing.Short() {
		n = 5 // as Go's
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(-1))
	// Go's HammerRWMutex(gomaxprocs, numReaders, n) calls.
	for _, c := range [][2]int{{1, 1}, {1, 3}, {1, 10}, {4, 1}, {4, 3}, {4, 10}, {10, 1}, {10, 3}, {10, 10}, {10, 5}} {
		runtime.GOMAXPROCS(c[0])
		hammerRwLock(t, goPlain, c[1], n)
	}
}

// TestRwLockReadLoopGoroutines: 16 plain goroutines looping RLock and
// RUnlock with GOMAXPROCS(8). Under -tags lotdeadlock the thread-keyed
// detector panicked in RUnlock's release ("index out of range [12] with
// length 12"), leaving a read held by a goroutine that was gone.
func TestRwLockReadLoopGoroutines(t *testing.T) {
	participant(t)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	var l RwLock
	var wg sync.WaitGroup
	iters := scale(20000, 2000)
	for g := 0; g < 16; g++ {
		goPlain(t, &wg, func() {
			for i := 0; i < iters; i++ {
				l.RLock()
				l.RUnlock()
			}
		})
	}
	waitTimeout(t, &wg, "16 goroutines reading")
	rwQuiet(t, &l)
}
