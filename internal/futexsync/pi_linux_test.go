package futexsync

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/futex"
)

// TestPIMutexExclusion: a non-atomic counter incremented under the PI mutex
// by several locked threads (half through Lock and Unlock, half through
// LockTID and UnlockTID) ends
// at the sum, and the word is 0 after the last unlock.
func TestPIMutexExclusion(t *testing.T) {
	var m PIMutex
	var n int
	const threads, iters = 8, 5000
	var wg sync.WaitGroup
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(byTID bool) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tid := futex.Gettid()
			for j := 0; j < iters; j++ {
				if byTID {
					m.LockTID(tid)
				} else {
					m.Lock()
				}
				if owner, _ := m.Owner(); owner != tid {
					t.Errorf("owner %d while TID %d holds the lock", owner, tid)
				}
				n++
				if byTID {
					m.UnlockTID(tid)
				} else {
					m.Unlock()
				}
			}
		}(i%2 == 0)
	}
	wg.Wait()
	if n != threads*iters {
		t.Fatalf("counter %d, want %d: mutual exclusion violated", n, threads*iters)
	}
	if s := m.state.Load(); s != 0 {
		t.Fatalf("word %#x after all unlocks, want 0", s)
	}
}

// TestPIMutexHandoff: the protocol's word, step by step. Uncontended the
// word is the owner's TID and no system call is made; a second thread
// blocking sets FUTEX_WAITERS (the kernel does), the owner's unlock then
// goes through FUTEX_UNLOCK_PI, which writes the waiter's TID into the
// word before the waiter returns from Lock. Both unlocks: Unlock (load,
// CAS) and UnlockTID (CAS TID -> 0, which must fail on TID|FUTEX_WAITERS).
func TestPIMutexHandoff(t *testing.T) {
	for _, byTID := range []bool{false, true} {
		name := "Unlock"
		if byTID {
			name = "UnlockTID"
		}
		t.Run(name, func(t *testing.T) { testPIMutexHandoff(t, byTID) })
	}
}

func testPIMutexHandoff(t *testing.T, byTID bool) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var m PIMutex
	tid := futex.Gettid()
	m.LockTID(tid)
	if got := m.state.Load(); got != tid {
		t.Fatalf("word %#x after an uncontended lock, want the TID %#x", got, tid)
	}
	if m.TryLockTID(tid + 1) {
		t.Fatal("TryLockTID took a held lock")
	}
	got := make(chan uint32, 1)
	waiterTID := make(chan uint32, 1)
	released := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		me := futex.Gettid()
		waiterTID <- me
		m.LockTID(me)
		got <- m.state.Load()
		m.Unlock()
		close(released)
	}()
	wt := <-waiterTID
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, w := m.Owner(); w {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("FUTEX_WAITERS never set while TID %d waits (word %#x)", wt, m.state.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if owner, _ := m.Owner(); owner != tid {
		t.Fatalf("owner %d while waiting, want %d", owner, tid)
	}
	if byTID {
		m.UnlockTID(tid)
	} else {
		m.Unlock()
	}
	if w := <-got; w&futex.PITidMask != wt {
		t.Fatalf("word %#x in the waiter after the handoff, want its TID %d", w, wt)
	}
	// The word is the waiter's to clear: read it once its Unlock returned
	// (read right after the handoff, it can still hold the waiter's TID).
	<-released
	if s := m.state.Load(); s != 0 {
		t.Fatalf("word %#x after the waiter's unlock, want 0", s)
	}
}
