package lot

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/parkers"
)

// chanParker is the tests' own ThreadParker: an armed flag plus a one-slot
// channel, so tests do not depend on which backends internal/parkers has.
// It parks the goroutine (not the thread) in the Go scheduler.
type chanParker struct {
	armed atomic.Uint32
	ch    chan struct{}
	timer *time.Timer // owner-only; reused, so a timed park does not allocate
}

type chanHandle struct{ p *chanParker }

func newChanParker() parkers.ThreadParker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &chanParker{ch: make(chan struct{}, 1), timer: t}
}

func (p *chanParker) PreparePark() {
	p.armed.Store(1)
	select { // drop a stale wake left by an earlier waker
	case <-p.ch:
	default:
	}
}

func (p *chanParker) Park() {
	for p.armed.Load() != 0 {
		<-p.ch
	}
}

func (p *chanParker) ParkUntil(deadline time.Time) bool {
	for p.armed.Load() != 0 {
		d := time.Until(deadline)
		if d <= 0 {
			return false
		}
		// Go 1.23+ timers: Reset after Stop never sees a stale tick.
		p.timer.Reset(d)
		select {
		case <-p.ch:
		case <-p.timer.C:
		}
		p.timer.Stop()
	}
	return true
}

func (p *chanParker) TimedOut() bool { return p.armed.Load() != 0 }

func (p *chanParker) UnparkLock() parkers.UnparkHandle {
	p.armed.Store(0)
	return chanHandle{p}
}

func (h chanHandle) Unpark() {
	select {
	case h.p.ch <- struct{}{}:
	default:
	}
}

var chanBackend = parkers.Backend{
	Name:             "lot-test-chan",
	Kind:             parkers.KindThread,
	Summary:          "lot tests: armed flag + channel",
	Sleeps:           true,
	CheapToConstruct: true,
	NewThread:        newChanParker,
}

// stress reports whether long runs were asked for.
func stress() bool { return os.Getenv("PARKBENCH_STRESS") == "1" }

// scale picks an iteration count: full under PARKBENCH_STRESS=1, reduced
// under -race or -short.
func scale(full, reduced int) int {
	if stress() {
		return full
	}
	if longtest.Race || testing.Short() {
		return reduced
	}
	return (full + reduced) / 2
}

// testBackends returns the backends to run hammer tests over: every
// available backend of the registry that builds a ThreadParker (futex,
// pthread, spin, ... and the adapted token / goroutine ones), except the
// "default" alias, plus the tests' own chanBackend.
func testBackends() []parkers.Backend {
	out := []parkers.Backend{chanBackend}
	for _, b := range parkers.All() {
		// The futex measurement variants share futex's protocol (the
		// parkers' conformance tests run each); hammering each here
		// would only multiply the run time.
		if b.NewThread != nil && b.Name != parkers.NameDefault && b.Available() && runsHere(b) && !parkers.IsVariant(b.Name) {
			out = append(out, b)
		}
	}
	return out
}

// oneThread: every goroutine shares one thread and nothing preempts a
// goroutine that never blocks (wasm), so a test's busy loop must yield for
// the goroutines it waits for to run.
const oneThread = runtime.GOARCH == "wasm"

// runsHere is false for the backends that cannot take part in a test with
// several threads on wasm: the wasm parker panics by design (upstream
// wasm.rs), and with one thread and no preemption a spinning backend's
// waiter never lets the thread that would wake it run.
func runsHere(b parkers.Backend) bool {
	return runtime.GOARCH != "wasm" || b.Name != parkers.NameWasm && b.Sleeps
}

// withBackend runs fn with b installed, restoring the previous one after.
// GOMAXPROCS is raised to procs for the run (at least: as parkbench's
// runenv does, so no woken thread waits for a P; required by futex-raw,
// whose waits hold their P).
func withBackend(t *testing.T, b parkers.Backend, fn func(t *testing.T)) {
	t.Helper()
	if n := 16; runtime.GOMAXPROCS(0) < n {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	if !runsHere(b) {
		t.Skipf("backend %s cannot run a test with several threads on wasm", b.Name)
	}
	prev := currentPool.Load()
	if err := SetBackend(b); err != nil {
		t.Skipf("backend %s: %v", b.Name, err)
	}
	defer currentPool.Store(prev)
	fn(t)
}

// goThread runs fn on a new goroutine locked to its OS thread, as every
// participant of parkbench is; wg.Done when fn returns. A panic in fn is
// reported to t instead of killing the test binary.
func goThread(t testing.TB, wg *sync.WaitGroup, fn func()) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("thread panicked: %v", r)
			}
		}()
		fn()
	}()
}

// watchdogTimeout is how long a test may wait for an event that a correct
// implementation delivers at once: generous, since the machine is shared,
// but far below go test's timeout.
var watchdogTimeout = 20 * time.Second

// waitTimeout waits for wg, failing the test with what if it takes longer
// than the watchdog allows (a lost wakeup).
func waitTimeout(t testing.TB, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(watchdogTimeout):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("watchdog: %s did not finish within %v (lost wakeup?)\n%s", what, watchdogTimeout, buf[:n])
	}
}

// until spins (yielding) until cond holds, failing after the watchdog.
func until(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(watchdogTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: %s never happened within %v", what, watchdogTimeout)
		}
		runtime.Gosched()
	}
}

// forEachParked calls f for every thread parked on key, with the bucket
// locked (upstream's test helper for_each).
func forEachParked(key unsafe.Pointer, f func(td *threadData)) {
	b := lockBucket(key)
	for cur := b.queueHead; cur != nil; cur = cur.nextInQueue {
		if cur.loadKey() == key {
			f(cur)
		}
	}
	b.mutex.unlock()
}

// numParked counts threads parked on key.
func numParked(key unsafe.Pointer) int {
	n := 0
	forEachParked(key, func(*threadData) { n++ })
	return n
}

// ptrOf is the park key of a primitive.
func ptrOf[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }

// participant makes the test's own goroutine a parkbench thread (locked to
// its OS thread) and arms a per-test watchdog: if the test is still running
// after testWatchdog (the test goroutine itself stuck in a lost wakeup,
// where waitTimeout cannot help), every goroutine's stack is printed and
// the binary exits, long before go test's own timeout.
func participant(t *testing.T) {
	t.Helper()
	runtime.LockOSThread()
	limit := testWatchdog()
	name := t.Name()
	timer := time.AfterFunc(limit, func() {
		watchdogExit(fmt.Sprintf("%s still running after %v", name, limit))
	})
	t.Cleanup(func() {
		timer.Stop()
		runtime.UnlockOSThread()
	})
}

// watchdogExit prints every goroutine's stack and ends the test binary.
func watchdogExit(what string) {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	fmt.Fprintf(os.Stderr, "watchdog: %s (lost wakeup?)\n%s\n", what, buf[:n])
	os.Exit(3)
}

// progress counts the steps of a test whose length grows with its work
// (many subtests, many messages) and with the machine's load: its
// watchdogs fire only when no step was made for a whole interval, however
// long the test takes in all.
type progress struct{ steps atomic.Uint64 }

// step records progress.
func (p *progress) step() { p.steps.Add(1) }

// stalled blocks until done is closed (false) or until no step was made
// for limit (true).
func (p *progress) stalled(done <-chan struct{}, limit time.Duration) bool {
	tick := time.NewTicker(limit / 10)
	defer tick.Stop()
	last, since := p.steps.Load(), time.Now()
	for {
		select {
		case <-done:
			return false
		case <-tick.C:
		}
		if cur := p.steps.Load(); cur != last {
			last, since = cur, time.Now()
		} else if time.Since(since) >= limit {
			return true
		}
	}
}

// participantProgress is participant for a long test: the per-test
// watchdog fires only when the returned progress made no step for
// testWatchdog().
func participantProgress(t *testing.T) *progress {
	t.Helper()
	runtime.LockOSThread()
	p := new(progress)
	limit, name := testWatchdog(), t.Name()
	stop := make(chan struct{})
	go func() {
		if p.stalled(stop, limit) {
			watchdogExit(fmt.Sprintf("%s made no progress for %v", name, limit))
		}
	}()
	t.Cleanup(func() {
		close(stop)
		runtime.UnlockOSThread()
	})
	return p
}

// waitProgress waits for wg, failing the test with every goroutine's
// stack if p makes no step for the watchdog's interval (a lost wakeup);
// it may take as long as it keeps progressing.
func waitProgress(t testing.TB, wg *sync.WaitGroup, what string, p *progress) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if p.stalled(done, watchdogTimeout) {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("watchdog: %s made no progress for %v (lost wakeup?)\n%s", what, watchdogTimeout, buf[:n])
	}
}

// testWatchdog is the per-test limit of participant.
func testWatchdog() time.Duration {
	if stress() {
		return 10 * time.Minute
	}
	return 2 * watchdogTimeout
}

// TestProgressWatchdog checks the tests' own progress watchdog: it fires
// after an interval without a step, never while steps come or once done.
func TestProgressWatchdog(t *testing.T) {
	var p progress
	if !p.stalled(make(chan struct{}), 20*time.Millisecond) {
		t.Fatal("no step, not done: stalled must report true")
	}
	done := make(chan struct{})
	stop := make(chan struct{})
	go func() {
		for i := 0; i < 50; i++ {
			p.step()
			time.Sleep(time.Millisecond)
		}
		close(done)
		<-stop
	}()
	if p.stalled(done, time.Minute) {
		t.Fatal("done: stalled must report false")
	}
	close(stop)
}

// burn is the tests' unit of busy work inside a critical section: n
// atomic loads (parkers.CPURelax), about a nanosecond each. Not cpuRelax,
// which is upstream's spin hint and on amd64 a PAUSE of tens of
// nanoseconds: the hammers' sizes were set in loads.
func burn(n int) { parkers.CPURelax(n) }
