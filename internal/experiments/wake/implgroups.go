package wake

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
)

// futexGroup: perf's waiters on one raw futex word, in Go threads.
type futexGroup struct {
	*waiterSet
	w1    atomic.Int32 // the waiters' word; the requeue's source
	_     [60]byte
	w2    atomic.Int32 // the requeue's target
	_     [60]byte
	scope scopeT
}

func newFutexGroup(n int, cpus []int, shared bool) group {
	g := &futexGroup{scope: scope(shared), waiterSet: newWaiters(n, false)}
	g.start(cpus, func(int) {
		g.countIn()
		// perf's workerfn (tools/perf/bench/futex-wake.c:75-78): wait
		// while the word is 0; only a signal waits again. Woken, or the
		// word set by a forced release (EAGAIN): leave.
		for waitWord(&g.w1, 0, g.scope) {
		}
	})
	return g
}

func (g *futexGroup) ready() int { return g.countedIn() }

func (g *futexGroup) wakeCall(k int) int { return wakeWord(&g.w1, allAtOnce(k), g.scope) }

func (g *futexGroup) fire(bench string, k int, per []int64, bound time.Duration) fireResult {
	if bench == BenchRequeue {
		r := timedLoop(g.n, k, func(k int) int { return requeueWord(&g.w1, &g.w2, allAtOnce(k), g.scope) }, per, bound)
		// Everybody is on w2 now; perf wakes them untimed
		// (tools/perf/bench/futex-requeue.c:202 at commit 0959046303).
		wakeWord(&g.w2, allAtOnce(0), g.scope)
		return r
	}
	return timedLoop(g.n, k, g.wakeCall, per, bound)
}

func (g *futexGroup) close() bool {
	return g.closeWith(func() {
		g.w1.Store(1)
		g.w2.Store(1)
		wakeWord(&g.w1, allAtOnce(0), g.scope)
		wakeWord(&g.w2, allAtOnce(0), g.scope)
	})
}

// lotKey is a park key: the address of a live heap object (DESIGN: never a
// bare uintptr), one per cache line.
type lotKey struct{ _ [64]byte }

// lotGroup: waiters parked on one key of the parking lot.
type lotGroup struct {
	*waiterSet
	key1, key2 *lotKey
	released   atomic.Bool
	validate   func() bool
	// requeueOp is what the timed requeue asks for.
	requeueOp lot.RequeueOp
	requeue   func() lot.RequeueOp
}

func newLotGroup(n int, cpus []int) group {
	g := &lotGroup{key1: new(lotKey), key2: new(lotKey), waiterSet: newWaiters(n, false)}
	g.validate = func() bool { return !g.released.Load() }
	g.requeue = func() lot.RequeueOp { return g.requeueOp }
	g.start(cpus, func(int) {
		g.countIn()
		// validate runs under the bucket lock: once a forced release has
		// set released, no waiter parks any more.
		lot.Park(unsafe.Pointer(g.key1), g.validate, nil, nil, lot.DefaultParkToken, time.Time{})
	})
	return g
}

// queued counts the threads parked on key without unparking any
// (UnparkFilter skipping each).
func queued(key *lotKey) int {
	c := 0
	lot.UnparkFilter(unsafe.Pointer(key), func(lot.ParkToken) lot.FilterOp { c++; return lot.FilterOpSkip }, nil)
	return c
}

// ready is the waiters counted in and parked on the key: the lot's own
// queue is the proof that each is in its wait.
func (g *lotGroup) ready() int {
	if c := g.countedIn(); c < g.n {
		return c
	}
	return queued(g.key1)
}

// wakeCall: UnparkOne for one at a time, UnparkAll for all at once, and
// UnparkFilter (unpark k, then stop) for k at a time.
func (g *lotGroup) wakeCall(k int) int {
	switch {
	case k == 1:
		return lot.UnparkOne(unsafe.Pointer(g.key1), nil).UnparkedThreads
	case k <= 0:
		return lot.UnparkAll(unsafe.Pointer(g.key1), lot.DefaultUnparkToken)
	}
	// The budget is the call's own: wake-parallel's wakers call at once.
	left := k
	return lot.UnparkFilter(unsafe.Pointer(g.key1), func(lot.ParkToken) lot.FilterOp {
		if left <= 0 {
			return lot.FilterOpStop
		}
		left--
		return lot.FilterOpUnpark
	}, nil).UnparkedThreads
}

func (g *lotGroup) fire(bench string, k int, per []int64, bound time.Duration) fireResult {
	if bench == BenchRequeue {
		// parking_lot's requeue moves one (RequeueOne) or all
		// (RequeueAll); Validate admits only those two.
		g.requeueOp = lot.RequeueOpRequeueAll
		if k == 1 {
			g.requeueOp = lot.RequeueOpRequeueOne
		}
		r := timedLoop(g.n, k, func(int) int {
			return lot.UnparkRequeue(unsafe.Pointer(g.key1), unsafe.Pointer(g.key2), g.requeue, nil).RequeuedThreads
		}, per, bound)
		lot.UnparkAll(unsafe.Pointer(g.key2), lot.DefaultUnparkToken)
		return r
	}
	return timedLoop(g.n, k, g.wakeCall, per, bound)
}

func (g *lotGroup) close() bool {
	return g.closeWith(func() {
		g.released.Store(true)
		lot.UnparkAll(unsafe.Pointer(g.key1), lot.DefaultUnparkToken)
		lot.UnparkAll(unsafe.Pointer(g.key2), lot.DefaultUnparkToken)
	})
}

// condGroup: waiters in a condition variable's wait, each looping on a
// predicate the waker sets under the mutex before the clock starts (the
// way a condvar is used: notify after changing the state). The
// implementations: Rust std's futex condvar (broadcast), its
// FUTEX_CMP_REQUEUE variant, and Go's sync.Cond (goroutines).
type condGroup struct {
	*waiterSet
	lock, unlock func()
	wait         func()
	released     bool // under the mutex
	// notify makes one notify call: k = 1 notify_one, k = 0 notify_all;
	// held says whether the waker holds the mutex. It returns the count
	// woken (plus requeued), -1 when the API says nothing.
	notify func(k int, held bool) int
}

func startCond(g *condGroup, n int, cpus []int, goroutines bool) {
	g.waiterSet = newWaiters(n, goroutines)
	g.start(cpus, func(int) {
		g.lock()
		g.countIn()
		for !g.released {
			g.wait()
		}
		g.unlock()
	})
}

func newStdGroup(n int, cpus []int) group {
	var m futexsync.Mutex
	var c futexsync.Condvar
	g := &condGroup{lock: m.Lock, unlock: m.Unlock, wait: func() { c.Wait(&m) }}
	g.notify = func(k int, _ bool) int {
		if k == 1 {
			return c.NotifyOne()
		}
		return c.NotifyAll()
	}
	startCond(g, n, cpus, false)
	return g
}

func newStdRequeueGroup(n int, cpus []int) group {
	var m futexsync.Mutex
	var c futexsync.RequeueCondvar
	g := &condGroup{lock: m.Lock, unlock: m.Unlock, wait: func() { c.Wait(&m) }}
	g.notify = func(k int, held bool) int {
		var w, r int
		switch {
		case k == 1 && held:
			w, r = c.NotifyOneLocked(&m)
		case k == 1:
			w, r = c.NotifyOne(&m)
		case held:
			w, r = c.NotifyAllLocked(&m)
		default:
			w, r = c.NotifyAll(&m)
		}
		return w + r
	}
	startCond(g, n, cpus, false)
	return g
}

func newSyncGroup(n int) group {
	var m sync.Mutex
	c := sync.NewCond(&m)
	g := &condGroup{lock: m.Lock, unlock: m.Unlock, wait: c.Wait}
	g.notify = func(k int, _ bool) int {
		if k == 1 {
			c.Signal()
		} else {
			c.Broadcast()
		}
		return -1
	}
	startCond(g, n, nil, true)
	return g
}

func (g *condGroup) ready() int { g.lock(); defer g.unlock(); return g.countedIn() }

func (g *condGroup) wakeCall(k int) int { return g.notify(k, false) }

func (g *condGroup) fire(bench string, k int, per []int64, bound time.Duration) fireResult {
	g.lock()
	g.released = true
	if bench == BenchRequeue {
		// The requeue bench notifies with the mutex held, as parking_lot's
		// notify_all does when the lock is held (RequeueAll): everyone
		// moves onto the mutex, nobody wakes; the unlock, untimed, then
		// wakes them one by one.
		r := timedLoop(g.n, k, func(k int) int { return g.notify(k, true) }, per, bound)
		g.unlock()
		return r
	}
	g.unlock()
	return timedLoop(g.n, k, g.wakeCall, per, bound)
}

func (g *condGroup) close() bool {
	return g.closeWith(func() {
		g.lock()
		g.released = true
		g.unlock()
		g.notify(0, false)
	})
}

// cGroup: C waiter threads (internal/cref): perf's loops on a futex word
// (c-futex), or a pthread condvar; the timed wake runs in C.
type cGroup struct {
	set  *cref.WakeSet
	n    int
	kind cref.WakeKind
	// settle is slept in C right before the timed loop (settleInFire).
	settle time.Duration
}

// settleInFire makes the C waker sleep the settle itself, in the same cgo
// call as its timed loop, as perf's main thread does.
func (g *cGroup) settleInFire(d time.Duration) { g.settle = d }

func newCGroup(kind cref.WakeKind, n int, cpus []int) (group, error) {
	s, err := cref.StartWake(kind, n, cpus)
	if err != nil {
		return nil, err
	}
	return &cGroup{set: s, n: n, kind: kind}, nil
}

func (g *cGroup) ready() int      { return g.set.Counted() }
func (g *cGroup) tid(i int) int   { return g.set.Tid(i) }
func (g *cGroup) threads() bool   { return true }
func (g *cGroup) pinError() error { return g.set.PinError() }

// wakeCall is not used: the C groups take no part in wake-parallel.
func (g *cGroup) wakeCall(int) int { return 0 }

func (g *cGroup) fire(bench string, k int, per []int64, bound time.Duration) fireResult {
	op := cref.OpWake
	switch {
	case bench == BenchRequeue:
		op = cref.OpRequeue
	case g.kind == cref.WaitCond && k == 1:
		op = cref.OpSignal
	case g.kind == cref.WaitCond:
		op = cref.OpBroadcast
	}
	r := g.set.Fire(op, allAtOnce(k), per, bound, g.settle)
	return fireResult{totalNs: r.TotalNs, calls: r.Calls, done: r.Done, timedOut: r.TimedOut}
}

func (g *cGroup) join(timeout time.Duration) bool { return g.set.Join(timeout) }

func (g *cGroup) close() bool { g.set.Close(); return true }
