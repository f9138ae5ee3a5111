package wake

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
)

// group is one run's N blocked waiters of one implementation and what the
// waker can do to them. A group is used by one run only: fresh waiters
// every run, as perf creates its threads per run.
type group interface {
	// ready is how many waiters are ready: counted in right before their
	// wait (and, for lot, queued on the key).
	ready() int
	// tid is waiter i's kernel thread id (0 until published); threads
	// says whether the waiters are threads at all (sync's are goroutines,
	// whose sleep cannot be seen).
	tid(i int) int
	threads() bool
	// pinError is the first failed pin, or nil.
	pinError() error
	// fire runs the timed operation on the calling thread: bench's wakes
	// or requeues, k per call (0: all at once), at most bound long; per
	// gets each call's duration.
	fire(bench string, k int, per []int64, bound time.Duration) fireResult
	// wakeCall is one wake call waking up to k (0: all); wake-parallel's
	// wakers each make one. It returns how many it woke.
	wakeCall(k int) int
	// join waits up to timeout for every waiter to leave its wait; false
	// is a lost wakeup.
	join(timeout time.Duration) bool
	// close releases by force any waiter still waiting and waits for it;
	// false if some waiter still did not leave (a release that failed).
	close() bool
}

// fireResult is what one timed operation measured.
type fireResult struct {
	totalNs  int64 // the clock before the first call -> after the last
	calls    int
	done     int  // woken or requeued as the calls reported; -1: the API reports none
	timedOut bool // the bound passed before every waiter was reached
}

// allAtOnce is k = 0 passed to the kernel: wake (or requeue) them all.
func allAtOnce(k int) int {
	if k <= 0 {
		return math.MaxInt32
	}
	return k
}

// timedLoop is the waker's measured loop for the Go mechanisms, perf's
// `while (nwoken != nthreads) nwoken += futex_wake(...)`
// (tools/perf/bench/futex-wake.c:202-206 at commit 550d14e3942c): call
// (which wakes or requeues up to k) until n have been reached, with one
// clock read after each call for the per-call durations. A call that
// cannot say how many it reached (a condvar's signal or broadcast:
// returns < 0) counts as k, or as all of them for k = 0, and the result's
// done is -1.
func timedLoop(n, k int, call func(k int) int, per []int64, bound time.Duration) fireResult {
	var res fireResult
	unknown := false
	t0 := monoclock.Nanotime()
	prev := t0
	for res.done < n {
		r := call(k)
		t := monoclock.Nanotime()
		if res.calls < len(per) {
			per[res.calls] = t - prev
		}
		prev = t
		res.calls++
		if r < 0 {
			unknown = true
			r = k
			if k <= 0 {
				r = n
			}
		}
		res.done += r
		if res.done < n && t-t0 > int64(bound) {
			res.timedOut = true
			break
		}
	}
	res.totalNs = prev - t0
	if unknown {
		res.done = -1
	}
	return res
}

// waiterSet is n Go waiters: goroutines locked to their own OS threads
// (osthread.Go), each pinned to cpus[i] (-1 or nil cpus: unpinned), or, for
// goroutine-level mechanisms, plain goroutines.
type waiterSet struct {
	n       int
	slots   []waiterSlot
	counted atomic.Int64
	exited  atomic.Int64 // waiters that left their wait
	pinErr  atomic.Pointer[error]
	done    chan struct{} // closed when every waiter left its wait
	isGo    bool          // plain goroutines
	// A woken waiter thread lingers until the run is over (see start);
	// gone counts the threads that then ended.
	linger *lingerer
	gone   sync.WaitGroup
}

type waiterSlot struct {
	tid atomic.Int64
	_   [56]byte // one waiter per cache line
}

// newWaiters makes the set; start launches them.
func newWaiters(n int, goroutines bool) *waiterSet {
	return &waiterSet{n: n, slots: make([]waiterSlot, n), done: make(chan struct{}), isGo: goroutines, linger: newLingerer()}
}

// start launches the waiters; body(i) must call countIn right before it
// blocks and return once woken. A waiter thread then counts itself out and
// sleeps until the run is over (release), and only then exits: perf's
// waiters exit at once (pthread_exit), but a Go thread's exit goes through
// the runtime (exitsyscall for a P, then mexit: the scheduler lock, the P
// handed off, the thread torn down) on the CPUs the waker is using, which
// here doubled the waker's median time for two waiters (147 against 74 µs,
// perf 82 µs, c-futex 92 µs; docs/experiments.md, "parkbench wake"). The
// lingering thread's cost in the window is its return from FUTEX_WAIT and
// one more FUTEX_WAIT. Goroutine waiters (sync) just end.
func (ws *waiterSet) start(cpus []int, body func(i int)) {
	n := ws.n
	ws.gone.Add(n)
	run := func(i int) {
		defer ws.gone.Done()
		if !ws.isGo {
			if cpus != nil && cpus[i] >= 0 {
				if err := osthread.Pin(cpus[i]); err != nil {
					ws.pinErr.CompareAndSwap(nil, &err)
				}
			}
			ws.slots[i].tid.Store(int64(osthread.Tid()))
		}
		body(i)
		if ws.exited.Add(1) == int64(n) {
			close(ws.done)
		}
		if !ws.isGo {
			ws.linger.wait()
		}
	}
	for i := 0; i < n; i++ {
		osthread.Start(ws.isGo, func() { run(i) })
	}
}

// countIn is called by a waiter right before its wait.
func (ws *waiterSet) countIn() { ws.counted.Add(1) }

func (ws *waiterSet) countedIn() int { return int(ws.counted.Load()) }
func (ws *waiterSet) tid(i int) int  { return int(ws.slots[i].tid.Load()) }
func (ws *waiterSet) threads() bool  { return !ws.isGo }

func (ws *waiterSet) pinError() error {
	if p := ws.pinErr.Load(); p != nil {
		return *p
	}
	return nil
}

func (ws *waiterSet) join(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-ws.done:
		return true
	case <-t.C:
		return false
	}
}

// releaseBound is how long a forced release may take before close gives
// up on the waiters.
const releaseBound = 10 * time.Second

// closeWith runs release (which must make every waiter leave its wait)
// unless all have, waits for them, at most releaseBound, then ends the
// lingering threads and waits for them.
func (ws *waiterSet) closeWith(release func()) bool {
	ok := true
	select {
	case <-ws.done:
	default:
		release()
		ok = ws.join(releaseBound)
	}
	if !ok {
		return false // some waiter is still in its wait: it cannot linger
	}
	ws.linger.end()
	ws.gone.Wait()
	return true
}
