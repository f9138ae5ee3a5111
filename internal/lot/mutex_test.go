package lot

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/parkers"
)

var _ sync.Locker = (*Mutex)(nil)

func TestMutexSmoke(t *testing.T) {
	participant(t)
	var m Mutex
	m.Lock()
	if !m.IsLocked() || m.TryLock() {
		t.Fatal("locked mutex: TryLock succeeded")
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("unlocked mutex: TryLock failed")
	}
	m.UnlockFair()
	m.Lock()
	m.Bump() // nobody parked: no-op
	m.Unlock()
	if m.state.Load() != 0 {
		t.Fatalf("state %#x after unlock", m.state.Load())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("Unlock of an unlocked Mutex did not panic")
		}
	}()
	m.Unlock()
}

// TestMutexTimeouts: a timed lock on a held mutex times out, and the last
// timed-out waiter clears PARKED (timed_out callback, was_last).
func TestMutexTimeouts(t *testing.T) {
	participant(t)
	var m Mutex
	var wg sync.WaitGroup
	held := make(chan struct{})
	release := make(chan struct{})
	goThread(t, &wg, func() {
		m.Lock()
		close(held)
		<-release
		m.Unlock()
	})
	<-held
	goThreadResult := make(chan bool, 2)
	var wg2 sync.WaitGroup
	goThread(t, &wg2, func() { goThreadResult <- m.TryLockFor(time.Millisecond) })
	goThread(t, &wg2, func() { goThreadResult <- m.TryLockUntil(time.Now().Add(2 * time.Millisecond)) })
	waitTimeout(t, &wg2, "timed lockers")
	if r1, r2 := <-goThreadResult, <-goThreadResult; r1 || r2 {
		t.Fatal("timed lock of a held mutex succeeded")
	}
	if s := m.state.Load(); s != lockedBit {
		t.Fatalf("state %#x after the last waiter timed out, want LOCKED only", s)
	}
	if m.TryLockUntil(time.Time{}) {
		t.Fatal("TryLockUntil(zero) on a held mutex succeeded")
	}
	close(release)
	waitTimeout(t, &wg, "holder")
	if !m.TryLockFor(time.Hour) {
		t.Fatal("TryLockFor on a free mutex failed")
	}
	m.Unlock()
}

// TestMutexUnlockFairHandsOff: UnlockFair with a parked waiter keeps the
// mutex locked and hands it over (TOKEN_HANDOFF); nobody can barge in.
func TestMutexUnlockFairHandsOff(t *testing.T) {
	participant(t)
	var m Mutex
	var wg sync.WaitGroup
	got := make(chan struct{})
	release := make(chan struct{})
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		close(got)
		<-release
		m.Unlock()
	})
	until(t, "waiter parked", func() bool { return numParked(ptrOf(&m)) == 1 })
	m.UnlockFair()
	if m.TryLock() {
		t.Fatal("TryLock succeeded right after UnlockFair to a parked waiter: no handoff")
	}
	if s := m.state.Load(); s != lockedBit {
		t.Fatalf("state %#x after handoff to the only waiter, want LOCKED", s)
	}
	<-got
	close(release)
	waitTimeout(t, &wg, "handoff receiver")
}

// TestMutexBump: Bump with a parked waiter lets it run, then relocks.
func TestMutexBump(t *testing.T) {
	participant(t)
	var m Mutex
	var wg sync.WaitGroup
	var ran atomic.Bool
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		ran.Store(true)
		m.Unlock()
	})
	until(t, "waiter parked", func() bool { return numParked(ptrOf(&m)) == 1 })
	m.Bump()
	if !ran.Load() {
		t.Fatal("Bump returned before the waiter held the lock")
	}
	if !m.IsLocked() {
		t.Fatal("Bump returned without the lock")
	}
	m.Unlock()
	waitTimeout(t, &wg, "bumped waiter")
}

// hammerThreads and hammerIters size the mutual-exclusion hammers: fewer
// for backends that do not sleep (they burn a CPU while parked on this
// 2-vCPU machine).
func hammerSize(b parkers.Backend) (threads, iters, work int) {
	if !b.Sleeps {
		// A critical section longer than a waiter's whole SpinWait budget
		// (3 spins + 7 sched_yields), so waiters do reach the parker.
		return 3, scale(3000, 100), 20000
	}
	return 6, scale(50000, 2000), 200
}

// startBarrier returns a function that blocks (spinning, yielding) until
// n threads called it, so that a hammer's threads really run together.
func startBarrier(n int) func() {
	var arrived atomic.Int32
	return func() {
		arrived.Add(1)
		for arrived.Load() < int32(n) {
			threadYield()
		}
	}
}

// parkedWith reports whether any thread ever parked in the lot with b (its
// pool owns at least one ThreadData or WordLock node).
func parkedWith(b parkers.Backend) bool {
	if b.Name == parkers.NameDefault {
		b = parkers.Default()
	}
	poolsMu.Lock()
	p := pools[b.Name]
	poolsMu.Unlock()
	return p != nil && (uint32(p.threads.head.Load()) != 0 || uint32(p.wlNodes.head.Load()) != 0)
}

// TestMutexHammer: mutual exclusion with an unprotected counter, over
// every backend, mixing Lock, TryLock, timed locks, UnlockFair and Bump.
// It contends by construction: the test holds m until every hammer
// thread is parked on it (whatever ran before, and however short the
// run), so each backend parks and wakes at least threads times.
func TestMutexHammer(t *testing.T) {
	participant(t)
	for _, b := range testBackends() {
		t.Run(b.Name, func(t *testing.T) {
			participant(t)
			withBackend(t, b, func(t *testing.T) {
				threads, iters, work := hammerSize(b)
				var m Mutex
				counter := 0 // protected by m only
				inside := atomic.Int32{}
				var wg sync.WaitGroup
				start := startBarrier(threads)
				m.Lock()
				for i := 0; i < threads; i++ {
					i := i
					goThread(t, &wg, func() {
						// Parks: the test holds m until all are parked.
						m.Lock()
						//lint:ignore SA2001 parks until the test releases m once every hammer thread is parked
						m.Unlock()
						start()
						for j := 0; j < iters; j++ {
							switch (i + j) % 7 {
							case 0:
								if !m.TryLock() {
									m.Lock()
								}
							case 1:
								for !m.TryLockFor(50 * time.Microsecond) {
								}
							default:
								m.Lock()
							}
							if inside.Add(1) != 1 {
								t.Error("two threads inside the critical section")
							}
							counter++
							burn(work) // long enough that waiters exhaust spinning and park
							if j%13 == 0 {
								inside.Add(-1)
								m.Bump()
								inside.Add(1)
							}
							inside.Add(-1)
							if j%5 == 0 {
								m.UnlockFair()
							} else {
								m.Unlock()
							}
						}
					})
				}
				until(t, "every hammer thread parked on the held mutex", func() bool { return numParked(ptrOf(&m)) == threads })
				m.Unlock()
				waitTimeout(t, &wg, "mutex hammer")
				if counter != threads*iters {
					t.Fatalf("counter = %d, want %d: mutual exclusion broken", counter, threads*iters)
				}
				if s := m.state.Load(); s != 0 {
					t.Fatalf("state %#x at the end", s)
				}
				if !parkedWith(b) {
					t.Errorf("no thread ever parked with %s: the hammer did not contend (it parks every thread before it starts)", b.Name)
				}
			})
		})
	}
}

// TestWordLockHammer: the bucket lock on its own, with an unprotected
// counter.
func TestWordLockHammer(t *testing.T) {
	participant(t)
	for _, b := range testBackends() {
		t.Run(b.Name, func(t *testing.T) {
			participant(t)
			withBackend(t, b, func(t *testing.T) {
				threads, iters, work := hammerSize(b)
				var l wordLock
				counter := 0
				var wg sync.WaitGroup
				start := startBarrier(threads)
				for i := 0; i < threads; i++ {
					goThread(t, &wg, func() {
						start()
						for j := 0; j < iters; j++ {
							l.lock()
							counter++
							burn(work) // long enough that waiters exhaust spinning and park
							l.unlock()
						}
					})
				}
				waitTimeout(t, &wg, "wordlock hammer")
				if counter != threads*iters {
					t.Fatalf("counter = %d, want %d", counter, threads*iters)
				}
				if s := l.state.Load(); s != 0 {
					t.Fatalf("state %#x at the end", s)
				}
				if !parkedWith(b) {
					t.Errorf("no thread ever queued with %s: the hammer did not contend", b.Name)
				}
			})
		})
	}
}

// TestWordLockFIFO: queued waiters are woken oldest first (LIFO push, FIFO
// pop from the tail).
func TestWordLockFIFO(t *testing.T) {
	participant(t)
	var l wordLock
	l.lock()
	const n = 5
	order := make(chan int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		i := i
		goThread(t, &wg, func() {
			l.lock()
			order <- i
			l.unlock()
		})
		// Wait until thread i is queued (it is the new head).
		until(t, "waiter queued", func() bool {
			h := wlHead(l.state.Load())
			if h == nil {
				return false
			}
			c := 0
			for x := h; x != nil; x = x.next {
				c++
				if x.queueTail != nil {
					break
				}
			}
			return c == i+1
		})
	}
	l.unlock()
	waitTimeout(t, &wg, "wordlock waiters")
	for i := 0; i < n; i++ {
		if got := <-order; got != i {
			t.Fatalf("wake #%d was thread %d: not FIFO", i, got)
		}
	}
}

func TestSpinWait(t *testing.T) {
	participant(t)
	var s SpinWait
	n := 0
	for s.Spin() {
		n++
	}
	if n != 10 {
		t.Fatalf("Spin returned true %d times, want 10 (3 spins + 7 yields)", n)
	}
	s.Reset()
	if !s.Spin() {
		t.Fatal("Spin after Reset")
	}
	for i := 0; i < 20; i++ {
		s.SpinNoYield()
	}
	if s.counter != 10 {
		t.Fatalf("SpinNoYield counter %d, want capped at 10", s.counter)
	}
}

// TestSetBackendWhileParked: threads parked with one backend are woken
// after the backend changed, and later parks use the new one.
func TestSetBackendWhileParked(t *testing.T) {
	participant(t)
	prev := currentPool.Load()
	defer currentPool.Store(prev)
	if err := SetBackend(chanBackend); err != nil {
		t.Fatal(err)
	}
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	done := false
	for i := 0; i < 3; i++ {
		goThread(t, &wg, func() {
			m.Lock()
			for !done {
				c.Wait(&m)
			}
			m.Unlock()
		})
	}
	until(t, "waiters parked", func() bool { return numParked(ptrOf(&c)) == 3 })
	var pooled []*threadData
	forEachParked(ptrOf(&c), func(td *threadData) { pooled = append(pooled, td) })
	for _, td := range pooled {
		if td.pool.backend.Name != chanBackend.Name {
			t.Fatalf("parked with %s", td.pool.backend.Name)
		}
	}
	if err := SetBackend(parkers.Default()); err != nil {
		t.Fatal(err)
	}
	if CurrentBackend().Name != parkers.Default().Name {
		t.Fatalf("CurrentBackend = %s", CurrentBackend().Name)
	}
	m.Lock()
	done = true
	c.NotifyAll()
	m.Unlock()
	waitTimeout(t, &wg, "waiters across a backend change")
	if err := SetBackendName("no-such-parker"); err == nil {
		t.Fatal("SetBackendName accepted an unknown name")
	}
}
