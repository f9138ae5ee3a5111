package lot

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Ports of parking_lot's src/condvar.rs tests. Every participant is a
// goroutine locked to its thread; upstream's thread::sleep pauses become
// "until the waiters are really parked" checks, and recv_timeout's become
// the watchdog.

func TestCondvarSmoke(t *testing.T) {
	participant(t)
	var c Condvar
	c.NotifyOne()
	c.NotifyAll()
	c.NotifyAllWake()
}

func TestCondvarNotifyOne(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		c.NotifyOne()
		m.Unlock()
	})
	c.Wait(&m)
	m.Unlock()
	waitTimeout(t, &wg, "notifier")
}

// notifyAllTest is upstream's notify_all / notify_all_return: N threads
// count themselves in and wait while cnt != 0; main zeroes cnt and
// notifies all with the mutex held.
func notifyAllTest(t *testing.T, notify func(c *Condvar) int, wantRet int) {
	const n = 10
	var m Mutex
	var c Condvar
	cnt := 0
	var wg sync.WaitGroup
	allIn := make(chan struct{})
	var out atomic.Int32
	for i := 0; i < n; i++ {
		goThread(t, &wg, func() {
			m.Lock()
			cnt++
			if cnt == n {
				close(allIn)
			}
			for cnt != 0 {
				c.Wait(&m)
			}
			m.Unlock()
			out.Add(1)
		})
	}
	select {
	case <-allIn:
	case <-time.After(watchdogTimeout):
		t.Fatal("watchdog: threads never all counted in")
	}
	m.Lock()
	cnt = 0
	if got := notify(&c); wantRet >= 0 && got != wantRet {
		t.Errorf("notify returned %d, want %d", got, wantRet)
	}
	m.Unlock()
	waitTimeout(t, &wg, "notified threads")
	if out.Load() != n {
		t.Fatalf("%d threads out", out.Load())
	}
	if got := c.NotifyAll(); got != 0 {
		t.Fatalf("NotifyAll with nobody waiting = %d", got)
	}
}

func TestCondvarNotifyAll(t *testing.T) {
	participant(t)
	notifyAllTest(t, func(c *Condvar) int { return c.NotifyAll() }, -1)
}

// TestCondvarNotifyAllReturn: all 10 waiters have called Wait (cnt == N
// was reached under the mutex, and the last one is queued before it
// released it), so NotifyAll returns N: 0 woken + N requeued, the mutex
// being held.
func TestCondvarNotifyAllReturn(t *testing.T) {
	participant(t)
	notifyAllTest(t, func(c *Condvar) int {
		r := c.NotifyAllResult()
		if r.UnparkedThreads != 0 || r.RequeuedThreads != 10 {
			t.Errorf("NotifyAll with the mutex held: %+v, want RequeueAll of 10", r)
		}
		return r.UnparkedThreads + r.RequeuedThreads
	}, 10)
}

// TestCondvarNotifyAllUnlocked: NotifyAll with the mutex released wakes
// exactly one and requeues the rest (UnparkOneRequeueRest + mark_parked).
func TestCondvarNotifyAllUnlocked(t *testing.T) {
	participant(t)
	const n = 6
	var m Mutex
	var c Condvar
	done := false
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		goThread(t, &wg, func() {
			m.Lock()
			for !done {
				c.Wait(&m)
			}
			m.Unlock()
		})
	}
	until(t, "waiters parked", func() bool { return numParked(ptrOf(&c)) == n })
	m.Lock()
	done = true
	m.Unlock()
	r := c.NotifyAllResult()
	if r.UnparkedThreads != 1 || r.RequeuedThreads != n-1 {
		t.Fatalf("NotifyAll, mutex free: %+v, want 1 unparked, %d requeued", r, n-1)
	}
	waitTimeout(t, &wg, "requeued waiters")
}

func TestCondvarNotifyAllWake(t *testing.T) {
	participant(t)
	notifyAllTest(t, func(c *Condvar) int { return c.NotifyAllWake() }, 10)
}

func TestCondvarNotifyOneReturnTrue(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		if !c.NotifyOne() {
			t.Error("NotifyOne with a waiter returned false")
		}
		m.Unlock()
	})
	c.Wait(&m)
	m.Unlock()
	waitTimeout(t, &wg, "notifier")
}

func TestCondvarNotifyOneReturnFalse(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		if c.NotifyOne() {
			t.Error("NotifyOne with nobody waiting returned true")
		}
		m.Unlock()
	})
	waitTimeout(t, &wg, "notifier")
}

func TestCondvarWaitFor(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	m.Lock()
	if !c.WaitFor(&m, time.Millisecond) {
		t.Fatal("WaitFor(1ms) with nobody notifying did not time out")
	}
	if !m.IsLocked() {
		t.Fatal("mutex not relocked after a timeout")
	}
	goThread(t, &wg, func() {
		m.Lock()
		c.NotifyOne()
		m.Unlock()
	})
	if c.WaitFor(&m, 1<<62) {
		t.Fatal("WaitFor(forever) timed out")
	}
	m.Unlock()
	waitTimeout(t, &wg, "notifier")
}

func TestCondvarWaitUntil(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	m.Lock()
	if !c.WaitUntil(&m, time.Now().Add(time.Millisecond)) {
		t.Fatal("WaitUntil(now+1ms) did not time out")
	}
	goThread(t, &wg, func() {
		m.Lock()
		c.NotifyOne()
		m.Unlock()
	})
	if c.WaitUntil(&m, time.Now().Add(time.Duration(1<<32)*time.Millisecond)) {
		t.Fatal("WaitUntil(far future) timed out")
	}
	m.Unlock()
	waitTimeout(t, &wg, "notifier")
}

// TestCondvarTwoMutexes is upstream's #[should_panic] two_mutexes: waiting
// with a second mutex while a thread waits with the first panics.
func TestCondvarTwoMutexes(t *testing.T) {
	participant(t)
	var m, m3 Mutex
	var c Condvar
	var wg sync.WaitGroup
	ready := make(chan struct{})
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		close(ready)
		c.Wait(&m)
		m.Unlock()
	})
	m.Unlock()
	<-ready
	until(t, "waiter parked", func() bool { return numParked(ptrOf(&c)) == 1 })
	m.Lock()
	var panicked any
	func() {
		defer func() { panicked = recover() }()
		m3.Lock()
		c.Wait(&m3)
	}()
	if s, _ := panicked.(string); !strings.Contains(s, "more than one mutex") {
		t.Fatalf("Wait with a second mutex: panic %v", panicked)
	}
	if !m3.IsLocked() {
		t.Fatal("second mutex unlocked by the failed wait")
	}
	m3.Unlock()
	// Upstream's PanicGuard: notify so the first waiter is not left behind.
	c.NotifyOne()
	m.Unlock()
	waitTimeout(t, &wg, "first waiter")
}

func TestCondvarTwoMutexesDisjoint(t *testing.T) {
	participant(t)
	var m, m3 Mutex
	var c Condvar
	var wg sync.WaitGroup
	m.Lock()
	goThread(t, &wg, func() {
		m.Lock()
		c.NotifyOne()
		m.Unlock()
	})
	c.Wait(&m)
	m.Unlock()
	waitTimeout(t, &wg, "notifier")
	m3.Lock()
	c.WaitFor(&m3, time.Millisecond)
	m3.Unlock()
}

func TestCondvarDebug(t *testing.T) {
	participant(t)
	var c Condvar
	if got := fmt.Sprint(&c); got != "Condvar { .. }" {
		t.Fatalf("String = %q", got)
	}
}

// TestCondvarRequeue is upstream's test_condvar_requeue: NotifyOne with the
// mutex held requeues the waiter onto the mutex (and returns true); Bump
// until it does; the unlock then wakes it.
func TestCondvarRequeue(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		c.Wait(&m)
		m.Unlock()
	})
	m.Lock()
	deadline := time.Now().Add(watchdogTimeout)
	for !c.NotifyOne() {
		if time.Now().After(deadline) {
			t.Fatal("watchdog: the waiter never got into Wait")
		}
		// Let the other thread get into Wait.
		m.Bump()
		threadYield()
	}
	// The thread has been requeued onto the mutex.
	if numParked(ptrOf(&m)) != 1 || numParked(ptrOf(&c)) != 0 {
		t.Fatalf("after NotifyOne with the mutex held: %d on the mutex, %d on the condvar",
			numParked(ptrOf(&m)), numParked(ptrOf(&c)))
	}
	m.Unlock()
	waitTimeout(t, &wg, "requeued waiter")
}

// TestCondvarIssue129 is upstream's test_issue_129 (PR #129: was_last in
// park's timeout path was wrong, so a timed-out waiter cleared the
// condvar's state while others still waited, and a chain of notify_one
// stopped). Each thread waits, then waits 1 ms (times out), then notifies
// the next.
func TestCondvarIssue129(t *testing.T) {
	participant(t)
	rounds := scale(20, 3)
	for r := 0; r < rounds; r++ {
		var m Mutex
		var c Condvar
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			goThread(t, &wg, func() {
				m.Lock()
				c.Wait(&m)
				c.WaitFor(&m, time.Millisecond)
				c.NotifyOne()
				m.Unlock()
			})
		}
		until(t, "4 waiters parked", func() bool { return numParked(ptrOf(&c)) == 4 })
		c.NotifyOne()
		waitTimeout(t, &wg, "issue-129 notify chain")
	}
}

// TestCondvarTimeoutRacingRequeue stresses issue 129's window directly:
// WaitFor with tiny timeouts while another thread NotifyAlls with the mutex
// held (requeue onto the mutex). A requeued waiter that times out must not
// count as timed out, must not clear state, and nobody may be lost.
func TestCondvarTimeoutRacingRequeue(t *testing.T) {
	participant(t)
	rounds := int64(scale(3000, 300))
	var m Mutex
	var c Condvar
	var wg sync.WaitGroup
	var stop atomic.Bool
	var waits, timeouts atomic.Int64
	for i := 0; i < 3; i++ {
		i := i
		goThread(t, &wg, func() {
			for !stop.Load() {
				m.Lock()
				if c.WaitFor(&m, time.Duration(i*20)*time.Microsecond) {
					timeouts.Add(1)
				}
				waits.Add(1)
				m.Unlock()
				if oneThread {
					// The 0 µs waiter never blocks: on wasm's one
					// thread nothing else would run.
					runtime.Gosched()
				}
			}
		})
	}
	// Notify (with the mutex held: requeue; and without) until the waiters
	// have been through enough waits.
	deadline := time.Now().Add(watchdogTimeout)
	for r := 0; waits.Load() < rounds; r++ {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: only %d waits completed", waits.Load())
		}
		m.Lock()
		c.NotifyAll()
		m.Unlock()
		if r%3 == 0 {
			c.NotifyOne()
		}
		if oneThread {
			// wasm: the waiters only run when this loop yields (no
			// other thread, no preemption signal).
			runtime.Gosched()
		}
	}
	stop.Store(true)
	// Every wait is timed, so every thread leaves by itself.
	waitTimeout(t, &wg, "timed waiters")
	if n := numParked(ptrOf(&c)) + numParked(ptrOf(&m)); n != 0 {
		t.Fatalf("%d threads left queued", n)
	}
	if c.state.Load() != nil {
		t.Fatal("condvar state left set with nobody waiting")
	}
	if s := m.state.Load(); s != 0 {
		t.Fatalf("mutex state %#x at the end", s)
	}
	t.Logf("%d waits, %d timed out", waits.Load(), timeouts.Load())
}

// TestCondvarQueue is a short version of upstream's webkit_queue_test:
// producers and consumers over a bounded queue with NotifyOne / NotifyAll,
// with and without timeouts, over several backends; every message must
// arrive exactly once and in per-producer order. Its watchdogs fire only
// when no message moved (or no subtest ended) for a whole interval: the
// test's length depends on the machine's load.
func TestCondvarQueue(t *testing.T) {
	all := participantProgress(t)
	type cfg struct {
		producers, consumers, size int
		all, bounded               bool
	}
	cfgs := []cfg{
		{1, 1, 1, true, true},
		{1, 5, 1, true, false},
		{1, 1, 100, true, false},
		{4, 2, 1, false, false},
		{4, 4, 10, false, true},
	}
	msgs := scale(20000, 300)
	for _, b := range testBackends() {
		if !b.Sleeps {
			continue // spinning backends: covered by the hammers
		}
		for _, cf := range cfgs {
			cf := cf
			name := fmt.Sprintf("%s/p%d_c%d_q%d_all%v_bounded%v", b.Name, cf.producers, cf.consumers, cf.size, cf.all, cf.bounded)
			t.Run(name, func(t *testing.T) {
				// A participant thread; its messages are steps of the
				// whole test's progress, which its watchdog checks.
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				withBackend(t, b, func(t *testing.T) {
					runQueueTest(t, all, cf.producers, cf.consumers, cf.size, msgs, cf.all, cf.bounded)
				})
			})
			all.step()
		}
	}
}

// runQueueTest moves the messages; every message produced or consumed is a
// step of p.
func runQueueTest(t *testing.T, p *progress, producers, consumers, maxSize, msgs int, notifyAll, bounded bool) {
	var m Mutex
	var empty, full Condvar
	var items []int
	cont := true
	var outMu Mutex
	var out []int
	wait := func(c *Condvar, pred func() bool) {
		for !pred() {
			if bounded {
				c.WaitFor(&m, time.Second)
			} else {
				c.Wait(&m)
			}
		}
	}
	notify := func(c *Condvar, should bool) {
		if !notifyAll {
			c.NotifyOne()
		} else if should {
			c.NotifyAll()
		}
	}
	var cwg, pwg sync.WaitGroup
	for i := 0; i < consumers; i++ {
		goThread(t, &cwg, func() {
			for {
				m.Lock()
				wait(&empty, func() bool { return len(items) > 0 || !cont })
				if len(items) == 0 && !cont {
					m.Unlock()
					return
				}
				should := len(items) == maxSize
				v := items[0]
				items = items[1:]
				m.Unlock()
				notify(&full, should)
				outMu.Lock()
				out = append(out, v)
				outMu.Unlock()
				p.step()
			}
		})
	}
	for i := 0; i < producers; i++ {
		goThread(t, &pwg, func() {
			for msg := 0; msg < msgs; msg++ {
				m.Lock()
				wait(&full, func() bool { return len(items) < maxSize })
				should := len(items) == 0
				items = append(items, msg)
				m.Unlock()
				notify(&empty, should)
				p.step()
			}
		})
	}
	waitProgress(t, &pwg, "producers", p)
	m.Lock()
	cont = false
	m.Unlock()
	empty.NotifyAll()
	waitProgress(t, &cwg, "consumers", p)
	if len(out) != producers*msgs {
		t.Fatalf("%d messages arrived, want %d", len(out), producers*msgs)
	}
	count := make([]int, msgs)
	for _, v := range out {
		count[v]++
	}
	for v, c := range count {
		if c != producers {
			t.Fatalf("message %d arrived %d times, want %d", v, c, producers)
		}
	}
}
