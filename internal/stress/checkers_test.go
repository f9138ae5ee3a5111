package stress

// Every checker of this suite must be able to fail. Each test here runs a
// workload against a deliberately broken mechanism, with a recorder in
// place of t, and asserts that the checker reported the violation.

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

func brokenRun(t *testing.T, f func(r *recorder)) *recorder {
	t.Helper()
	old := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(old)
	stallOverride = 300 * time.Millisecond
	defer func() { stallOverride = 0 }()
	r := &recorder{t: t}
	f(r)
	return r
}

func expectFailure(t *testing.T, r *recorder, substr string) {
	t.Helper()
	if !r.failed(substr) {
		t.Fatalf("the checker did not report %q; it reported:\n%s", substr, r)
	}
	t.Logf("caught as expected: %.300s", r.String())
}

// lostWakeParker is the futex parker's BUG_FUTEX_CHECK_THEN_SLEEP in Go:
// it checks the state, then sleeps on a channel whose wake is not
// remembered. A wake between the check and the receive is lost.
type lostWakeParker struct {
	state atomic.Int32
	ch    chan struct{}
}

func newLostWakeParker() parkers.ThreadParker { return &lostWakeParker{ch: make(chan struct{})} }

func (p *lostWakeParker) PreparePark() { p.state.Store(1) }
func (p *lostWakeParker) Park()        { p.ParkUntil(time.Time{}) }
func (p *lostWakeParker) ParkUntil(deadline time.Time) bool {
	for p.state.Load() != 0 {
		runtime.Gosched() // widen the window between the check and the sleep
		var timeout <-chan time.Time
		if !deadline.IsZero() {
			tm := time.NewTimer(time.Until(deadline))
			defer tm.Stop()
			timeout = tm.C
		}
		select {
		case <-p.ch:
		case <-timeout:
			return p.state.Load() == 0
		}
	}
	return true
}
func (p *lostWakeParker) TimedOut() bool { return p.state.Load() != 0 }
func (p *lostWakeParker) UnparkLock() parkers.UnparkHandle {
	p.state.Store(0)
	return p
}
func (p *lostWakeParker) Unpark() {
	select {
	case p.ch <- struct{}{}:
	default: // nobody receiving: the wake is lost
	}
}

func TestCheckerCatchesLostWakeup(t *testing.T) {
	r := brokenRun(t, func(r *recorder) {
		stressThreadParker(r, "broken/lost-wake", newLostWakeParker, 4, 2)
	})
	expectFailure(t, r, "LOST WAKEUP")
}

// spuriousParker returns from Park without being unparked, sometimes.
type spuriousParker struct{ parkers.ThreadParker }

func (p spuriousParker) Park() {
	if rand.IntN(2) == 0 {
		return
	}
	p.ThreadParker.Park()
}

func TestCheckerCatchesSpuriousPark(t *testing.T) {
	b, err := parkers.Lookup("futex")
	if err != nil {
		b = threadBackends()[0]
	}
	r := brokenRun(t, func(r *recorder) {
		stressThreadParker(r, "broken/spurious", func() parkers.ThreadParker { return spuriousParker{b.NewThread()} }, 4, 2)
	})
	expectFailure(t, r, "a return without an UnparkLock")
}

// badTimedOutParker says it timed out even when an unpark raced in.
type badTimedOutParker struct{ parkers.ThreadParker }

func (p badTimedOutParker) ParkUntil(d time.Time) bool {
	p.ThreadParker.ParkUntil(d)
	return false
}
func (p badTimedOutParker) TimedOut() bool { return true }

func TestCheckerCatchesLateUnparkLost(t *testing.T) {
	b, err := parkers.Lookup("futex")
	if err != nil {
		b = threadBackends()[0]
	}
	r := brokenRun(t, func(r *recorder) {
		stressThreadParker(r, "broken/timed-out", func() parkers.ThreadParker { return badTimedOutParker{b.NewThread()} }, 4, 2)
	})
	expectFailure(t, r, "TimedOut() is true but the waker already dequeued")
}

// semaphoreToken accumulates tokens (a counting semaphore).
type semaphoreToken struct{ ch chan struct{} }

func newSemaphoreToken() parkers.TokenParker { return &semaphoreToken{ch: make(chan struct{}, 8)} }
func (p *semaphoreToken) Park()              { <-p.ch }
func (p *semaphoreToken) ParkDeadline(d time.Time) bool {
	tm := time.NewTimer(time.Until(d))
	defer tm.Stop()
	select {
	case <-p.ch:
		return true
	case <-tm.C:
		return false
	}
}
func (p *semaphoreToken) Unpark() {
	select {
	case p.ch <- struct{}{}:
	default:
	}
}

func TestCheckerCatchesAccumulatingTokens(t *testing.T) {
	r := brokenRun(t, func(r *recorder) {
		checkTokensDoNotAccumulate(r, "broken/semaphore", newSemaphoreToken, 10)
	})
	expectFailure(t, r, "tokens accumulate")
}

// spuriousToken's Park sometimes returns without a token.
type spuriousToken struct{ parkers.TokenParker }

func (p spuriousToken) Park() {
	if rand.IntN(2) == 0 {
		return
	}
	p.TokenParker.Park()
}

func TestCheckerCatchesSpuriousToken(t *testing.T) {
	bs := tokenBackends()
	if len(bs) == 0 {
		t.Skip("no token backend here")
	}
	r := brokenRun(t, func(r *recorder) {
		stressTokenParker(r, "broken/spurious-token", func() parkers.TokenParker { return spuriousToken{bs[0].NewToken()} }, 4, 2)
	})
	expectFailure(t, r, "a park returned without a token")
}

// noLockCrossbeam is crossbeam's Parker with BUG_CROSSBEAM_NO_LOCK: unpark
// notifies without taking and dropping the lock first, so a parker that
// stored PARKED but has not yet entered the condvar wait misses it.
type noLockCrossbeam struct {
	state atomic.Int32 // 0 EMPTY, 1 PARKED, 2 NOTIFIED
	mu    sync.Mutex
	cv    *sync.Cond
}

func newNoLockCrossbeam() parkers.TokenParker {
	p := &noLockCrossbeam{}
	p.cv = sync.NewCond(&p.mu)
	return p
}
func (p *noLockCrossbeam) Park() { p.park() }
func (p *noLockCrossbeam) ParkDeadline(d time.Time) bool {
	p.park()
	return true
}
func (p *noLockCrossbeam) park() {
	if p.state.CompareAndSwap(2, 0) {
		return
	}
	p.mu.Lock()
	if !p.state.CompareAndSwap(0, 1) {
		p.state.Store(0)
		p.mu.Unlock()
		return
	}
	for {
		runtime.Gosched() // widen the window between PARKED and the wait
		p.cv.Wait()
		if p.state.CompareAndSwap(2, 0) {
			p.mu.Unlock()
			return
		}
	}
}
func (p *noLockCrossbeam) rescue() {
	p.mu.Lock()
	p.cv.Broadcast()
	p.mu.Unlock()
}

func (p *noLockCrossbeam) Unpark() {
	if p.state.Swap(2) == 1 {
		// BUG: no p.mu.Lock(); p.mu.Unlock() here.
		p.cv.Signal()
	}
}

func TestCheckerCatchesCrossbeamWithoutLock(t *testing.T) {
	r := brokenRun(t, func(r *recorder) {
		stressTokenParker(r, "broken/crossbeam-no-lock", newNoLockCrossbeam, 4, 2)
	})
	expectFailure(t, r, "LOST WAKEUP")
}

// noMutex excludes nobody.
type noMutex struct{}

func (noMutex) Lock()   {}
func (noMutex) Unlock() {}

func TestCheckerCatchesNoMutualExclusion(t *testing.T) {
	r := brokenRun(t, func(r *recorder) {
		stressMutex(r, "broken/no-mutex", noMutex{}, 4)
	})
	expectFailure(t, r, "mutual exclusion violated")
}

// spuriousCond's Wait sometimes returns at once, still holding the mutex:
// a spurious wakeup, which parking_lot's Condvar promises never to do.
type spuriousCond struct{ lot.Condvar }

func (c *spuriousCond) Wait(m *lot.Mutex) {
	if rand.IntN(3) == 0 {
		return
	}
	c.Condvar.Wait(m)
}

func TestCheckerCatchesSpuriousCondvarWakeup(t *testing.T) {
	r := brokenRun(t, func(r *recorder) {
		stressCondvar(r, "broken/spurious-cond", new(spuriousCond), new(spuriousCond), 2, 2)
	})
	expectFailure(t, r, "spurious wakeups")
}

// deafCond drops every NotifyOne (reports nobody woken); NotifyAll works
// only after the watchdog's rescue.
type deafCond struct {
	lot.Condvar
	rescued atomic.Bool
}

func (c *deafCond) NotifyOne() bool { return false }
func (c *deafCond) rescue()         { c.rescued.Store(true) }
func (c *deafCond) NotifyAll() int {
	if c.rescued.Load() {
		return c.Condvar.NotifyAll()
	}
	return 0
}

func TestCheckerCatchesLostNotify(t *testing.T) {
	a, b := new(deafCond), new(deafCond)
	r := brokenRun(t, func(r *recorder) {
		stressCondvar(r, "broken/deaf-cond", a, b, 2, 2)
	})
	expectFailure(t, r, "LOST WAKEUP")
}

func TestCheckerCatchesFIFOViolation(t *testing.T) {
	r := &recorder{t: t}
	ru := newRun(r, "broken/fifo", 1)
	checkMonotonic(ru, "key", [][2]uint64{{1, 1}, {2, 3}, {3, 2}})
	expectFailure(t, r, "FIFO violated")
	r = &recorder{t: t}
	ru = newRun(r, "ok/fifo", 1)
	if n := checkMonotonic(ru, "key", [][2]uint64{{5, 1}, {2, 0}, {9, 7}}); n != 3 || len(r.errs) != 0 {
		t.Fatalf("in-order pairs: n=%d errors=%s", n, r)
	}
}

func TestCheckerCatchesHungTimedWait(t *testing.T) {
	r := &recorder{t: t}
	ru := newRun(r, "broken/timeout", 1)
	d := time.Now()
	checkTimeoutBound(ru, "ParkUntil", d, d.Add(timeoutBound+time.Second))
	expectFailure(t, r, "hung timed wait")
}
