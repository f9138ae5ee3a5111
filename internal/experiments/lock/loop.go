package lock

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
)

// spec is one timed run.
type spec struct {
	threads, locks      int
	workIn, workBetween int // work-unit iterations (calibrated per language)
	pattern             cref.LockPattern
	holdSleep           time.Duration // hold-sleep and skew patterns
	duration            time.Duration
	seed                uint64
	goroutines          bool // plain goroutines instead of locked threads
}

// raw is what one timed run measured.
type raw struct {
	counts []int64 // acquisitions per thread
	wallNs int64   // barrier release -> stop flag
	cpuNs  int64   // process CPU over the same window (-1: unknown)
	waits  *hdrhistogram.Histogram
}

// padded is one lock between pads, as mutex.rs's
// Arc<([0u8; 300], M, [0u8; 300])>: no other data shares its cache lines.
// n is the mutual-exclusion check: incremented under the lock by every
// checked acquisition (thread.checked), it equals the threads' own
// counts of them unless two holders overlapped; value is the f64 the work
// inside the lock updates (mutex.rs's Mutex<f64>). Both share the lock
// word's cache line, as the f64 inside parking_lot's Mutex<f64> does.
type padded[M any] struct {
	_     [320]byte
	mu    M
	n     int64
	value float64
	_     [320]byte
}

// thread is one thread's own state, on its own cache lines. checked is
// how many of its count acquisitions incremented their lock's n.
type thread struct {
	_       [64]byte
	count   int64
	checked int64
	value   float64 // keeps the work live
	hist    *hdrhistogram.Histogram
	_       [64]byte
}

// stopFlag is mutex.rs's keep_going, inverted, on its own cache line.
type stopFlag struct {
	_ [64]byte
	atomic.Bool
	_ [64]byte
}

// work is mutex.rs's work unit inside the lock, n times: a dependent float
// add and multiply on the shared value.
func work(shared *float64, value float64, n int) float64 {
	for k := 0; k < n; k++ {
		*shared += value
		*shared *= 1.01
		value = *shared
	}
	return value
}

// workLocal is the same unit between acquisitions, on a thread-local value.
func workLocal(local, value float64, n int) (float64, float64) {
	for k := 0; k < n; k++ {
		local += value
		local *= 1.01
		value = local
	}
	return local, value
}

// loop is one thread's measured loop: mutex.rs's thread body. Allocation
// free (TestLoopAllocs): the histogram is preallocated, RecordValue does
// not allocate, and the lock calls go through the type parameter.
func loop[M any, PM interface {
	*M
	locker
}](locks []padded[M], t *thread, sp *spec, idx int, stop *stopFlag) {
	// pi-futex has its concrete loops too (loopOnePIMutex and
	// loopBarePIMutex, which pass LockTID their thread's TID); the generic
	// loopOne's Lock would make a gettid call per lock, so a TID lock
	// without a concrete loop takes the general loop below (acquire, pi.go).
	if len(locks) == 1 && sp.pattern == cref.PatternLoop {
		one, bare := concreteLoops(&locks[0])
		if sp.workIn == 0 && sp.workBetween == 0 {
			if f, ok := bare.(func(*padded[M], *thread, *stopFlag)); ok {
				f(&locks[0], t, stop)
				return
			}
		} else if f, ok := one.(func(*padded[M], *thread, int, int, *stopFlag)); ok {
			f(&locks[0], t, sp.workIn, sp.workBetween, stop)
			return
		}
		if byTID, _ := threadTID[M, PM](); !byTID {
			loopOne[M, PM](&locks[0], t, sp.workIn, sp.workBetween, stop)
			return
		}
	}
	rng := sp.seed ^ uint64(idx+1)*0x9E3779B97F4A7C15
	var value, local float64
	var n int64
	mask := int64(SampleEvery - 1)
	skew := sp.pattern == cref.PatternSkew
	if skew {
		mask = 0 // two threads, few acquisitions: time every one
	}
	sleeper := skew && idx == 1
	byTID, tid := threadTID[M, PM]()
	for !stop.Load() {
		l := &locks[0]
		if len(locks) > 1 {
			rng ^= rng << 13
			rng ^= rng >> 7
			rng ^= rng << 17
			l = &locks[rng%uint64(len(locks))]
		}
		if sleeper {
			time.Sleep(sp.holdSleep)
		}
		sample := n&mask == 0
		var t0, t1 int64
		if sample {
			t0 = monoclock.Nanotime()
		}
		acquire[M, PM](&l.mu, byTID, tid)
		if sample {
			t1 = monoclock.Nanotime()
		}
		l.n++
		switch {
		case sp.pattern == cref.PatternLoop:
			value = work(&l.value, value, sp.workIn)
		case !sleeper:
			time.Sleep(sp.holdSleep)
		}
		PM(&l.mu).Unlock()
		if sample {
			driver.RecordAll(t.hist, t1-t0) // after the unlock, as loopOne
		}
		local, value = workLocal(local, value, sp.workBetween)
		n++
	}
	t.count, t.checked = n, n
	t.value = value
}

// loopOne is loop for the common case, mutex.rs's own (benchmark/src/bin/
// mutex.rs:159-172, run_benchmark's thread body): one lock, the work
// pattern, with work. Per iteration it does what mutex.rs does: a relaxed
// load of the stop flag (keep_going), the lock, the work inside, the
// unlock, the work between, the count in a local; no clock read. Two
// things are the harness's own, each stated where it is:
//
//   - the wait sample: one acquisition in SampleEvery is timed (n's low
//     bits, a test and a branch per iteration), with two clock reads, and
//     recorded after the unlock so the histogram is not written under the
//     lock;
//   - the mutual-exclusion check: every acquisition increments l.n under
//     the lock. mutex.rs has no check; here the work inside already
//     writes the shared value (mutex.rs's *shared_value += value), which
//     shares l.n's cache line, so the increment adds no line transfer and
//     no store that the work does not make anyway. (With work between
//     only, the increment is the one write under the lock; those rows
//     are dominated by their work.)
//
// Go's calling convention has no callee-saved registers, so every value
// live across a call the loop may make (the lock's slow paths, the clock)
// is stored once an iteration: count, value and local here. The general
// loop's extra state (lock choice, pattern, sleeper) cost about 7 ns per
// iteration at one thread on the AMD guest (docs/findings.md, "The port's
// fast paths"), hence this loop.
//
// Every Go lock of allImpls runs a copy of this loop written for its
// concrete type (loop_gen.go, from gen_loops.go: `go generate`), where its
// Lock and Unlock inline as mutex.rs's do; this generic form is for any
// other type. Keep the bodies the same.
//
// With no work (mutex.rs's loop at 0 iterations inside and between: its
// two work loops then run no iteration) the copies are loopBare<Lock>:
// per iteration the stop flag's relaxed load, the wait sample's test, the
// lock, the unlock, the count, and no work written. Only the count is
// live across the lock's slow-path calls, so only it is stored an
// iteration. Its mutual-exclusion check is the sampled acquisitions'
// only: one in SampleEvery increments l.n under the lock (the timed one,
// which pays two clock reads anyway). A store in every iteration would be
// a write under the lock that mutex.rs does not make, between the lock's
// two locked instructions, in the rows whose figure is nothing but those
// instructions. So these rows check exclusion only between sampled
// acquisitions (a weak check; mutex.rs makes none), the run says so in a
// note (Run), and the evidence that lot excludes is its own tests and
// internal/stress. A lock without a generated copy runs loopOne here,
// which checks every acquisition.
//
//go:generate go run gen_loops.go
func loopOne[M any, PM interface {
	*M
	locker
}](l *padded[M], t *thread, workIn, workBetween int, stop *stopFlag) {
	var value, local float64
	var n int64
	for !stop.Load() {
		if n&(SampleEvery-1) == 0 {
			t0 := monoclock.Nanotime()
			PM(&l.mu).Lock()
			t1 := monoclock.Nanotime()
			l.n++
			value = work(&l.value, value, workIn)
			PM(&l.mu).Unlock()
			driver.RecordAll(t.hist, t1-t0)
		} else {
			PM(&l.mu).Lock()
			l.n++
			value = work(&l.value, value, workIn)
			PM(&l.mu).Unlock()
		}
		local, value = workLocal(local, value, workBetween)
		n++
	}
	t.count, t.checked = n, n
	t.value = value + local
}

// sampled is how many of n acquisitions, numbered from 0, had their wait
// timed: those whose number is a multiple of SampleEvery.
func sampled(n int64) int64 { return (n + SampleEvery - 1) / SampleEvery }

// goRun is one timed run of a Go lock: sp.threads goroutines locked to
// their OS threads meet at a start gate, run loop until the stop flag,
// and report their counts.
func goRun[M any, PM interface {
	*M
	locker
}](ctx context.Context, sp spec, init func(*M) error, free func(*M)) (*raw, error) {
	locks := make([]padded[M], sp.locks)
	if init != nil {
		for i := range locks {
			if err := init(&locks[i].mu); err != nil {
				for j := 0; j < i; j++ {
					free(&locks[j].mu)
				}
				return nil, err
			}
		}
	}
	if free != nil {
		defer func() {
			for i := range locks {
				free(&locks[i].mu)
			}
		}()
	}
	ths := make([]thread, sp.threads)
	for i := range ths {
		ths[i].hist = driver.NewHist()
	}
	wall, cpu, err := timedRun(ctx, sp.threads, sp.goroutines, sp.duration, 30*time.Second+10*sp.holdSleep, func(i int, stop *stopFlag) {
		loop[M, PM](locks, &ths[i], &sp, i, stop)
	})
	if err != nil {
		return nil, err
	}
	r := &raw{counts: make([]int64, sp.threads), wallNs: wall, cpuNs: cpu, waits: driver.NewHist()}
	var checked, locked int64
	for i := range ths {
		r.counts[i] = ths[i].count
		checked += ths[i].checked
		r.waits.Merge(ths[i].hist)
	}
	for i := range locks {
		locked += locks[i].n
	}
	return r, exclusionCheck(checked, locked)
}

// exclusionCheck compares the acquisitions the threads checked (counted
// in their own state) with what the locks' counters, incremented under
// the lock by each of them, say: fewer under the lock means two holders
// overlapped and an increment was lost.
func exclusionCheck(checked, locked int64) error {
	if checked != locked {
		return fmt.Errorf("lock correctness failure: the threads counted %d checked acquisitions but the locks' own counters, incremented under the lock, say %d: two holders overlapped", checked, locked)
	}
	return nil
}

// The uncontended pair is timed in uncBatches batches of uncIters pairs;
// the fastest batch counts (a preempted batch is only ever slower).
const (
	uncBatches = 20
	uncIters   = 20_000
)

// goUncontended is one thread's lock+unlock pair in ns on one padded
// lock, on a thread of its own.
func goUncontended[M any, PM interface {
	*M
	locker
}](init func(*M) error, free func(*M)) float64 {
	res := make(chan float64, 1)
	osthread.Go(func() {
		l := new(padded[M])
		if init != nil {
			if err := init(&l.mu); err != nil {
				res <- -1
				return
			}
			defer free(&l.mu)
		}
		byTID, tid := threadTID[M, PM]()
		res <- fastest(uncBatches, uncIters, func(n int) {
			for i := 0; i < n; i++ {
				acquire[M, PM](&l.mu, byTID, tid)
				PM(&l.mu).Unlock()
			}
		})
	})
	return <-res
}

// cRun is one timed run of the C floor. It blocks for the run's duration:
// an interrupt is seen right after.
func cRun(ctx context.Context, mode cref.LockMode, sp spec, plugin unsafe.Pointer) (*raw, error) {
	res, err := cref.LockRun(cref.LockRunConfig{
		Mode: mode, Plugin: plugin, Pattern: sp.pattern, Threads: sp.threads, Locks: sp.locks,
		WorkIn: sp.workIn, WorkBetween: sp.workBetween, HoldSleep: sp.holdSleep,
		Duration: sp.duration, SampleEvery: SampleEvery, Seed: sp.seed,
	})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	r := &raw{counts: res.Counts, wallNs: res.WallNs, cpuNs: res.CPUNs, waits: driver.NewHist()}
	if err := exclusionCheck(res.Checked, res.Locked); err != nil {
		return nil, fmt.Errorf("%w (C)", err)
	}
	for _, w := range res.Waits {
		_ = r.waits.RecordValues(w[0], w[1])
	}
	return r, nil
}

// timedRun is the timed window of one Go run: n goroutines locked to their
// OS threads meet at a start gate, run body(i, stop) from the gate's
// release until the stop flag (duration, or ctx's cancellation), and
// return. wall is gate -> stop flag, cpu the process CPU over the same
// window (-1: unknown). A thread still in body grace after the stop flag is
// a lost wakeup (or a spin lock whose holder never runs again): grace is
// generous, this machine is shared. A cancelled run returns ctx.Err().
//
// With plain set the n are plain goroutines (not locked): what a Go
// program's goroutines do with the lock.
func timedRun(ctx context.Context, n int, plain bool, duration, grace time.Duration, body func(i int, stop *stopFlag)) (wall, cpu int64, err error) {
	var ready atomic.Int32
	start := make(chan struct{})
	stop := new(stopFlag)
	done := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		osthread.Start(plain, func() {
			ready.Add(1)
			<-start
			body(i, stop)
			done <- struct{}{}
		})
	}
	for ready.Load() < int32(n) {
		time.Sleep(50 * time.Microsecond)
	}
	// Let the last thread reach its receive: ready counts a thread right
	// before it blocks on the gate.
	time.Sleep(time.Millisecond)
	cpu0 := processCPUNs()
	t0 := monoclock.Nanotime()
	close(start)
	timer := time.NewTimer(duration)
	var cancelled bool
	select {
	case <-timer.C:
	case <-ctx.Done():
		timer.Stop()
		cancelled = true
	}
	stop.Store(true)
	wall = monoclock.Nanotime() - t0
	cpu1 := processCPUNs()
	cpu = -1
	if cpu0 >= 0 && cpu1 >= 0 {
		cpu = cpu1 - cpu0
	}
	watchdog := time.NewTimer(grace)
	defer watchdog.Stop()
	for i := 0; i < n; i++ {
		select {
		case <-done:
		case <-watchdog.C:
			return 0, 0, fmt.Errorf("lock correctness failure: %d of %d threads still in the loop %v after the stop flag (a lost wakeup?)", n-i, n, grace)
		}
	}
	if cancelled {
		return 0, 0, ctx.Err()
	}
	return wall, cpu, nil
}

// processCPUNs is this process's user+system CPU time in ns, -1 where the
// OS has no getrusage.
func processCPUNs() int64 {
	ru, err := osthread.ProcessUsage()
	if err != nil {
		return -1
	}
	return ru.UserNs + ru.SysNs
}

// rwShared is rwlock.rs's padded lock and the f64 it protects, plus the
// exclusion checks: n counts write acquisitions under the write lock, and
// writing is 1 exactly while a writer is inside (a reader that sees it set
// held the read lock together with a writer).
type rwShared[M any] struct {
	_        [320]byte
	mu       M
	n        int64
	writing  atomic.Int32
	overlaps atomic.Int64
	value    float64
	_        [320]byte
}

// rwThread is one thread's own state, on its own cache lines.
type rwThread struct {
	_       [64]byte
	count   int64
	waitMax int64
	value   float64
	_       [64]byte
}

// rwLoop is one thread's loop: rwlock.rs's writer or reader body.
func rwLoop[M any, PM interface {
	*M
	rwLocker
}](l *rwShared[M], t *rwThread, sp *rwSpec, writer bool, stop *stopFlag) {
	var value, local float64
	var n, waitMax int64
	const mask = SampleEvery - 1
	for !stop.Load() {
		if writer {
			var t0 int64
			sample := n&mask == 0
			if sample {
				t0 = monoclock.Nanotime()
			}
			PM(&l.mu).Lock()
			if sample {
				waitMax = max(waitMax, monoclock.Nanotime()-t0)
			}
			l.writing.Store(1)
			l.n++
			value = work(&l.value, value, sp.workIn)
			l.writing.Store(0)
			PM(&l.mu).Unlock()
		} else {
			PM(&l.mu).RLock()
			if l.writing.Load() != 0 {
				l.overlaps.Add(1)
			}
			shared := l.value
			for k := 0; k < sp.workIn; k++ {
				local += value
				local *= shared
				value = local
			}
			PM(&l.mu).RUnlock()
		}
		local, value = workLocal(local, value, sp.workBetween)
		n++
	}
	t.count, t.waitMax, t.value = n, waitMax, value
}

// goRwRun is one timed rwlock run of a Go lock: writers then readers,
// goroutines locked to their OS threads, released together by a gate.
func goRwRun[M any, PM interface {
	*M
	rwLocker
}](ctx context.Context, sp rwSpec, init func(*M) error, free func(*M)) (*rwRaw, error) {
	l := new(rwShared[M])
	if init != nil {
		if err := init(&l.mu); err != nil {
			return nil, err
		}
		defer free(&l.mu)
	}
	nth := sp.readers + sp.writers
	ths := make([]rwThread, nth)
	wall, cpu, err := timedRun(ctx, nth, false, sp.duration, 30*time.Second, func(i int, stop *stopFlag) {
		rwLoop[M, PM](l, &ths[i], &sp, i < sp.writers, stop)
	})
	if err != nil {
		return nil, err
	}
	r := &rwRaw{wallNs: wall, cpuNs: cpu}
	var written int64
	for i := range ths {
		if i < sp.writers {
			r.writers = append(r.writers, ths[i].count)
			r.writeWaitMax = max(r.writeWaitMax, ths[i].waitMax)
			written += ths[i].count
		} else {
			r.readers = append(r.readers, ths[i].count)
		}
	}
	return r, rwCheck(written, l.n, l.overlaps.Load())
}

func rwCheck(writers, written, overlaps int64) error {
	if writers != written {
		return fmt.Errorf("rwlock correctness failure: the writers counted %d acquisitions but the lock's counter, incremented under the write lock, says %d: two writers overlapped", writers, written)
	}
	if overlaps != 0 {
		return fmt.Errorf("rwlock correctness failure: %d read acquisitions saw a writer inside the lock", overlaps)
	}
	return nil
}

// cRwRun is one timed run of the C floor; it blocks for the duration, an
// interrupt is seen right after.
func cRwRun(ctx context.Context, sp rwSpec) (*rwRaw, error) {
	res, err := cref.RwRun(cref.RwRunConfig{
		Readers: sp.readers, Writers: sp.writers, WorkIn: sp.workIn, WorkBetween: sp.workBetween,
		Duration: sp.duration, SampleEvery: SampleEvery,
	})
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var sum int64
	for _, c := range res.Writers {
		sum += c
	}
	r := &rwRaw{readers: res.Readers, writers: res.Writers, wallNs: res.WallNs, cpuNs: res.CPUNs, writeWaitMax: res.WriteWaitMaxNs}
	return r, rwCheck(sum, res.Written, res.Overlaps)
}
