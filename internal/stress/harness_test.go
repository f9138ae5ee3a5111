package stress

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/longtest"
)

var (
	flagDuration = flag.Duration("stress.duration", 0,
		"long mode: run each stress case for this long (0: short mode, unless PARKBENCH_STRESS=1, which means 5s)")
	flagStall = flag.Duration("stress.stall", 0,
		"watchdog: a thread that makes no progress for this long is reported stuck (default 15s, 30s in long mode)")
)

// timeoutBound is how late a timed wait may return after its deadline before
// it counts as hung. A hang detector, not a performance threshold.
const timeoutBound = 2 * time.Second

// stallOverride, if set, replaces the watchdog's limit (the checker tests
// use a short one: their broken parkers never wake, so any limit works).
var stallOverride time.Duration

// mode is the budget of one case.
type mode struct {
	long bool
	// dur: a case stops starting new operations after this long.
	dur time.Duration
	// ops: in short mode a case also stops after this many operations
	// (per case, summed over its threads).
	ops uint64
	// stall: the watchdog's no-progress limit.
	stall time.Duration
}

func currentMode() mode {
	m := mode{dur: 150 * time.Millisecond, ops: 4000, stall: 15 * time.Second}
	d := *flagDuration
	if d == 0 && os.Getenv("PARKBENCH_STRESS") != "" && os.Getenv("PARKBENCH_STRESS") != "0" {
		d = 5 * time.Second
		if s := os.Getenv("PARKBENCH_STRESS_DURATION"); s != "" {
			if v, err := time.ParseDuration(s); err == nil {
				d = v
			}
		}
	}
	if d > 0 {
		m = mode{long: true, dur: d, ops: 1 << 62, stall: 30 * time.Second}
	}
	if *flagStall > 0 {
		m.stall = *flagStall
	}
	if stallOverride > 0 {
		m.stall = stallOverride
	}
	return m
}

// reporter is the part of testing.TB the harness uses, so that the tests
// that prove a checker can fail run it against a recorder instead of t.
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Logf(format string, args ...any)
}

// recorder collects errors instead of failing (for the checker tests).
type recorder struct {
	t    testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Logf(format string, args ...any) { r.t.Logf(format, args...) }
func (r *recorder) failed(substr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		if strings.Contains(e, substr) {
			return true
		}
	}
	return false
}
func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errs, "\n")
}

// worker is one OS-locked thread of a case.
type worker struct {
	id     int
	name   string
	ops    atomic.Uint64 // progress, watched by the watchdog
	checks uint64        // checks done, owned by the worker
	state  atomic.Pointer[string]
	// shown is name as published for the watchdog: name is a plain field
	// the worker writes in its own goroutine, so the watchdog reads this
	// copy, stored by set (also in the worker's goroutine), instead.
	shown atomic.Pointer[string]
	done  atomic.Bool
	rng   *rand.Rand
}

// set records what the worker is doing, for the watchdog's dump.
// It publishes the worker's name the first time it is set.
func (w *worker) set(s *string) {
	if w.shown.Load() == nil && w.name != "" {
		n := w.name
		w.shown.Store(&n)
	}
	w.state.Store(s)
}

// String is the watchdog's view of the worker (another goroutine's):
// only atomics.
func (w *worker) String() string {
	s := "?"
	if p := w.state.Load(); p != nil {
		s = *p
	}
	name := fmt.Sprintf("thread %d", w.id)
	if p := w.shown.Load(); p != nil {
		name = *p
	}
	return fmt.Sprintf("%s: %s (ops %d)", name, s, w.ops.Load())
}

// Worker states; pointers to these are stored, so they are variables.
var (
	stStart     = "starting"
	stPark      = "parking"
	stParkUntil = "parking with a deadline"
	stRelock    = "relocking after a timeout"
	stUnpark    = "unparking"
	stWaitStop  = "waiting for the others to finish"
	stLock      = "locking"
	stCrit      = "in the critical section"
	stUnlock    = "unlocking"
	stWait      = "waiting on the condvar"
	stNotify    = "notifying"
	stWGWait    = "in WaitGroup.Wait"
	stDone      = "done"
)

// run is one case: a set of workers, a stop condition and a watchdog.
type run struct {
	r       reporter
	name    string
	mode    mode
	start   time.Time
	stop    atomic.Bool
	workers []*worker
	// rescue is called once if the watchdog finds a stuck thread: it must
	// unblock every worker (breaking contracts if need be) so the case can
	// end and report instead of hanging the binary.
	rescue  func()
	stalled atomic.Bool
	threads int
	faults0 uint64
	procs   int
	extra   []string // extra "k=v" fields for the STRESS line
	// violations counts errorf calls: checks that failed.
	violations atomic.Uint64
	mu         sync.Mutex
}

func newRun(r reporter, name string, threads int) *run {
	m := currentMode()
	if _, checker := r.(*recorder); !m.long && !checker && longtest.Short() {
		// Under -short a case stops after 30 ms: 272 cases took 30 s
		// under the race detector at 150 ms (14 s at 50 ms), the budget
		// the chaos and long tests steps of .ci/run keep
		// (docs/reliability.md, "Long tests"). The checker tests keep it
		// too: their broken parker must be caught within it.
		m.dur = 30 * time.Millisecond
	}
	ru := &run{r: r, name: name, mode: m, threads: threads, procs: runtime.GOMAXPROCS(0)}
	for i := 0; i < threads; i++ {
		w := &worker{id: i, name: fmt.Sprintf("thread %d", i), rng: rand.New(rand.NewPCG(uint64(i)+1, uint64(time.Now().UnixNano())))}
		w.set(&stStart)
		ru.workers = append(ru.workers, w)
	}
	return ru
}

// stopping reports whether the case should start no new operation.
func (ru *run) stopping() bool {
	if ru.stop.Load() {
		return true
	}
	if time.Since(ru.start) >= ru.mode.dur || ru.totalOps() >= ru.mode.ops || ru.stalled.Load() {
		ru.stop.Store(true)
		return true
	}
	return false
}

func (ru *run) totalOps() uint64 {
	var n uint64
	for _, w := range ru.workers {
		n += w.ops.Load()
	}
	return n
}

// note adds a k=v field to the STRESS line.
func (ru *run) note(format string, args ...any) {
	ru.mu.Lock()
	ru.extra = append(ru.extra, fmt.Sprintf(format, args...))
	ru.mu.Unlock()
}

// errorf reports a violation (any goroutine).
func (ru *run) errorf(format string, args ...any) {
	ru.violations.Add(1)
	ru.r.Errorf("%s: "+format, append([]any{ru.name}, args...)...)
}

// go runs fns[i] on worker i, each on its own locked OS thread, watches
// them, and returns when all are done.
func (ru *run) goAll(fns ...func(w *worker)) {
	ru.r.Helper()
	if len(fns) != len(ru.workers) {
		panic("stress: one function per worker")
	}
	ru.start = time.Now()
	ru.faults0 = chaos.Injected()
	var wg sync.WaitGroup
	for i, fn := range fns {
		w := ru.workers[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			defer func() { w.set(&stDone); w.done.Store(true) }()
			fn(w)
		}()
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	ru.watch(finished)
}

// rescueBound is how long the rescue may take to end a stuck case before
// the watchdog gives up and panics with every stack.
const rescueBound = 20 * time.Second

// watch is the watchdog: every worker that is not done must make progress
// (its ops counter must move) within mode.stall. If one does not, it
// reports who is stuck and what everyone is doing, with the goroutine
// stacks of this package, rescues, and if even that does not end the case
// it panics with every stack.
func (ru *run) watch(finished chan struct{}) {
	n := len(ru.workers)
	last := make([]uint64, n)
	since := make([]time.Time, n)
	now := time.Now()
	for i := range since {
		since[i] = now
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var rescuedAt time.Time
	for {
		select {
		case <-finished:
			return
		case <-tick.C:
		}
		now := time.Now()
		if !rescuedAt.IsZero() {
			// The rescue keeps waking every waiter until all are done;
			// under -race on a loaded 2-vCPU host that can take far
			// longer than a stall (a checker case's 300 ms once
			// panicked here in CI), so give it its own generous bound.
			if bound := max(ru.mode.stall, rescueBound); now.Sub(rescuedAt) > bound {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				panic(fmt.Sprintf("stress: %s: still stuck %v after the rescue\n%s", ru.name, bound, buf))
			}
			continue
		}
		var stuck []string
		for i, w := range ru.workers {
			if w.done.Load() {
				continue
			}
			if o := w.ops.Load(); o != last[i] {
				last[i], since[i] = o, now
				continue
			}
			if now.Sub(since[i]) > ru.mode.stall {
				stuck = append(stuck, w.String())
			}
		}
		if len(stuck) == 0 {
			continue
		}
		ru.stalled.Store(true)
		ru.stop.Store(true)
		var all []string
		for _, w := range ru.workers {
			all = append(all, "  "+w.String())
		}
		ru.errorf("LOST WAKEUP? no progress for %v: %s\nall threads:\n%s\nstacks:\n%s",
			ru.mode.stall, strings.Join(stuck, "; "), strings.Join(all, "\n"), ourStacks())
		if ru.rescue != nil {
			ru.rescue()
		}
		rescuedAt = now
	}
}

// ourStacks returns the stacks of the goroutines that run stress code.
func ourStacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var keep []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "internal/stress") && !strings.Contains(g, "ourStacks") {
			keep = append(keep, g)
		}
	}
	return strings.Join(keep, "\n\n")
}

// report logs the case's figures in one STRESS line (scripts/stress.sh sums
// them).
func (ru *run) report() (ops, checks uint64) {
	ru.r.Helper()
	for _, w := range ru.workers {
		ops += w.ops.Load()
		checks += w.checks
	}
	faults := chaos.Injected() - ru.faults0
	ru.mu.Lock()
	extra := strings.Join(ru.extra, " ")
	ru.mu.Unlock()
	ru.r.Logf("STRESS case=%s procs=%d threads=%d ops=%d checks=%d faults=%d violations=%d elapsed=%s %s",
		strings.ReplaceAll(ru.name, " ", "_"), ru.procs, ru.threads, ops, checks, faults, ru.violations.Load(),
		time.Since(ru.start).Round(time.Millisecond), extra)
	return ops, checks
}

// withProcs runs f under GOMAXPROCS=p and restores the old value.
func withProcs(t *testing.T, p int, f func(t *testing.T)) {
	t.Run(fmt.Sprintf("procs=%d", p), func(t *testing.T) {
		old := runtime.GOMAXPROCS(p)
		defer runtime.GOMAXPROCS(old)
		f(t)
	})
}

var procsMatrix = []int{1, 2, 8}

// checkTimeoutBound reports a timed wait that returned far past its deadline.
func checkTimeoutBound(ru *run, what string, deadline, returned time.Time) {
	if late := returned.Sub(deadline); late > timeoutBound {
		ru.errorf("%s returned %v after its deadline (bound %v): hung timed wait", what, late, timeoutBound)
	}
}

// checkMonotonic checks FIFO: pairs (enqueue ticket, dequeue sequence) of
// the threads one unparker woke, sorted by ticket, must have increasing
// dequeue sequences. It returns the number of pairs checked.
func checkMonotonic(ru *run, what string, pairs [][2]uint64) uint64 {
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	for i := 1; i < len(pairs); i++ {
		if pairs[i][1] <= pairs[i-1][1] {
			ru.errorf("%s: FIFO violated: ticket %d was dequeued as #%d, after ticket %d (#%d)",
				what, pairs[i-1][0], pairs[i-1][1], pairs[i][0], pairs[i][1])
			return uint64(i)
		}
	}
	return uint64(len(pairs))
}

// sometimes returns true with probability 1/n.
func (w *worker) sometimes(n int) bool { return w.rng.IntN(n) == 0 }

// shortDeadline is a deadline 0..200 µs ahead (some already passed).
func (w *worker) shortDeadline() time.Time {
	return time.Now().Add(time.Duration(w.rng.IntN(200)) * time.Microsecond)
}
