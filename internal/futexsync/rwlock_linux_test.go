//go:build linux

//lint:file-ignore SA2001 lock/unlock pairs with nothing inside measure and exercise the lock itself

package futexsync

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of the std futex RwLock: Go's sync/rwmutex_test.go hammer and
// parallel readers, std's try-lock rules, and writer progress under a
// steady read load (writer priority).

func TestRwLockTry(t *testing.T) {
	var rw RwLock
	if !rw.TryRLock() {
		t.Fatal("TryRLock on a free lock failed")
	}
	if !rw.TryRLock() {
		t.Fatal("TryRLock on a read-locked lock failed")
	}
	if rw.TryLock() {
		t.Fatal("TryLock while read-locked succeeded")
	}
	rw.RUnlock()
	rw.RUnlock()
	if !rw.TryLock() {
		t.Fatal("TryLock on a free lock failed")
	}
	if rw.TryRLock() || rw.TryLock() {
		t.Fatal("lock while write-locked succeeded")
	}
	rw.Unlock()
	if s := rw.state.Load(); s != 0 {
		t.Fatalf("state %#x after unlocks", s)
	}
}

// TestRwLockParallelReaders: n readers hold the read lock at once (each
// waits for the others while holding it).
func TestRwLockParallelReaders(t *testing.T) {
	for _, n := range []int{1, 3, 4} {
		var rw RwLock
		locked := make(chan bool, n)
		release := make(chan bool)
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				rw.RLock()
				locked <- true
				<-release
				rw.RUnlock()
			}()
		}
		// The watchdog turns a reader that cannot get the read lock while
		// the others hold it (readers excluding each other) into a
		// failure instead of a hang; it bounds a deadlock, not a speed.
		watchdog := time.After(readersWatchdog)
		for i := 0; i < n; i++ {
			select {
			case <-locked:
			case <-watchdog:
				t.Fatalf("%d readers: only %d hold the read lock together after %v: readers exclude each other", n, i, readersWatchdog)
			}
		}
		close(release)
		wg.Wait()
	}
}

// readersWatchdog bounds how long TestRwLockParallelReaders waits for its
// readers to hold the read lock together: far beyond any scheduling delay.
const readersWatchdog = time.Minute

// Go's HammerRWMutex: two writers and numReaders readers check mutual
// exclusion through one activity counter.
func hammerRwLock(t *testing.T, numReaders, iters int) {
	var rw RwLock
	var activity atomic.Int32
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			f()
		}()
	}
	writer := func() {
		for i := 0; i < iters; i++ {
			rw.Lock()
			if n := activity.Add(10000); n != 10000 {
				t.Errorf("wlock(%d)", n)
			}
			activity.Add(-10000)
			rw.Unlock()
		}
	}
	reader := func() {
		for i := 0; i < iters; i++ {
			rw.RLock()
			if n := activity.Add(1); n < 1 || n >= 10000 {
				t.Errorf("rlock(%d)", n)
			}
			activity.Add(-1)
			rw.RUnlock()
		}
	}
	run(writer)
	for i := 0; i < numReaders/2; i++ {
		run(reader)
	}
	run(writer)
	for i := numReaders / 2; i < numReaders; i++ {
		run(reader)
	}
	waitOrDump(t, &wg, "hammer")
	if s := rw.state.Load(); s != 0 {
		t.Fatalf("state %#x after the hammer", s)
	}
}

func TestRwLockHammer(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	hammerRwLock(t, 1, n)
	hammerRwLock(t, 3, n)
	hammerRwLock(t, 10, n)
}

// Writers get in under a read load that never leaves the lock free.
func TestRwLockWriterNotStarved(t *testing.T) {
	var rw RwLock
	var stop atomic.Bool
	var wg, wwg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for !stop.Load() {
				rw.RLock()
				runtime.Gosched()
				rw.RUnlock()
			}
		}()
	}
	wwg.Add(1)
	go func() {
		defer wwg.Done()
		for i := 0; i < 100; i++ {
			rw.Lock()
			rw.Unlock()
		}
	}()
	waitOrDump(t, &wwg, "writer under a read load")
	stop.Store(true)
	waitOrDump(t, &wg, "readers")
}

// waitOrDump waits for wg; after a generous watchdog (a lost wakeup) it
// fails with every goroutine's stack.
func waitOrDump(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("%s: not done after 60s (lost wakeup?)\n%s", what, buf[:runtime.Stack(buf, true)])
	}
}
