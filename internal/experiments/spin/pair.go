package spin

import (
	"context"
	"errors"
	"fmt"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
)

// sample is one measured wait, as the waiter saw it.
type sample struct {
	// lat is signal -> the waiter sees it: the waker's clock right before
	// its exchange (or Unlock) to the waiter's right after its wait; late
	// is the waiter's start + gap -> the same (how much later than due the
	// waiter resumed: on one CPU the signal itself is late when the
	// waiter holds the CPU the waker needs).
	lat, late int64
	// cpu is the waiter's CPU time from right before its wait to right
	// after it (CLOCK_THREAD_CPUTIME_ID, user and kernel), less the
	// clocks' own cost.
	cpu int64
	// slept: a voluntary context switch inside the wait (RUSAGE_THREAD):
	// the waiter parked and was woken. csw is every switch in it.
	slept bool
	csw   int32
}

// jobKind is what the pair does in one job.
type jobKind int

const (
	jobWait  jobKind = iota // warmup + n waits of one row at one gap
	jobPing                 // the park+wake ping-pong
	jobCalib                // a row's spin phase alone, on a word nobody signals
)

// shared is the state of one job between the two threads, each on its own
// cache line (the word and the gates pad themselves).
type shared struct {
	w, w2      word // w2: the ping-pong's second word
	arm        gate // waker -> waiter: the waker holds the lock for wait i
	waiting    gate // waiter -> waker, across CPUs: wait i started (start stamped)
	done       gate // waiter -> waker: wait i is over (the word cleared, the lock released)
	start, sig atomic.Int64
	abort      atomic.Bool
	progress   atomic.Int64 // waits that ended
	signalled  atomic.Int64 // waits whose signal was given (the waker, right after it)
}

// job is one unit of work for the pair.
type job struct {
	kind   jobKind
	r      row
	gap    int64
	warmup int
	n      int
	// competitive is this round's budget for the competitive row.
	competitive time.Duration
	out         []sample // n entries, the waiter's
	calib       []int64  // jobCalib: the spin phase's length, ns
	spurious    int64    // stale wakes the waiter saw
	s           *shared
	lock        ext.Locker
}

func (j *job) total() int { return j.warmup + j.n }

// pair is the waiter's and the waker's threads of one placement: each a
// goroutine locked to its own OS thread, pinned, taking jobs; between jobs
// both block on their channel (their threads sleep).
type pair struct {
	sleepy   bool // both on one CPU: handshakes sleep (gate)
	cpus     [2]int
	jobs     [2]chan *job
	finished chan int
	// overhead is the waiter's CPU cost of the clocks around a wait (the
	// median of back-to-back reads), subtracted from every wait's cpu.
	overhead int64
	// broken: a job's thread did not come back from the watchdog's
	// release (blocked in a foreign lock): the pair cannot run more.
	broken bool
}

// startPair starts the two threads, pinned to cpus (waiter, waker).
func startPair(cpus [2]int, sleepy bool) (*pair, error) {
	p := &pair{sleepy: sleepy, cpus: cpus, finished: make(chan int, 2)}
	errc := make(chan error, 2)
	for side := range 2 {
		p.jobs[side] = make(chan *job)
		osthread.Go(func() {
			if err := osthread.Pin(cpus[side]); err != nil {
				errc <- fmt.Errorf("pinning the %s to CPU %d: %w", sideName(side), cpus[side], err)
				return
			}
			if side == 0 {
				p.overhead = clockOverhead()
			}
			errc <- nil
			for j := range p.jobs[side] {
				if side == 0 {
					p.waiter(j)
				} else {
					p.waker(j)
				}
				p.finished <- side
			}
		})
	}
	var first error
	for range 2 {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		p.stop()
		return nil, first
	}
	return p, nil
}

func sideName(side int) string {
	if side == 0 {
		return "waiter"
	}
	return "waker"
}

// stop ends both threads (they exit locked: the runtime retires them).
func (p *pair) stop() {
	if !p.broken {
		close(p.jobs[0])
		close(p.jobs[1])
	}
}

// LostWakeupError is a job in which a wait did not end WatchdogPeriod
// after its signal: the row's waiter did not see it.
type LostWakeupError struct {
	Row, Placement string
	Gap            time.Duration
	Wait           int64
	Period         time.Duration
}

func (e *LostWakeupError) Error() string {
	return fmt.Sprintf("lost wakeup: %s at gap %v (%s): wait %d did not end within the watchdog's %v; the run is stopped",
		e.Row, e.Gap, e.Placement, e.Wait, e.Period)
}

// run gives j to both threads and waits for it, under the watchdog: when
// a wait has not ended WatchdogPeriod after its signal (a LostWakeupError)
// or no wait ends for StallPeriod (a StallError), the job is aborted (the
// word and the gates released, again every 10 ms until both threads are
// back, at most a second). A cancelled ctx aborts the same way and returns
// ctx's error.
func (p *pair) run(ctx context.Context, j *job, placement string) error {
	if p.broken {
		return errors.New("spin: the pair of threads is stuck in an earlier job")
	}
	j.s = &shared{}
	if j.r.newLock != nil {
		j.lock = j.r.newLock()
	}
	p.jobs[0] <- j
	p.jobs[1] <- j
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	back := 0
	var wd watchdog
	var failure error
	for back < 2 {
		select {
		case <-p.finished:
			back++
			continue
		case <-tick.C:
		}
		if failure != nil {
			continue
		}
		switch verdict := wd.look(j.s.progress.Load(), j.s.signalled.Load(), time.Now()); {
		case ctx.Err() != nil:
			failure = ctx.Err()
		case verdict == lost:
			failure = &LostWakeupError{Row: j.r.label(), Placement: placement, Gap: time.Duration(j.gap), Wait: wd.prog + 1, Period: WatchdogPeriod}
		case verdict == stalled:
			failure = &StallError{Row: j.r.label(), Placement: placement, Gap: time.Duration(j.gap), Wait: wd.prog + 1}
		default:
			continue
		}
		if !p.release(j, back) {
			p.broken = true
			return failure
		}
		back = 2
	}
	return failure
}

// watchdog tells a lost wakeup from a stall. A wait whose signal was given
// (the waker's count of signals is past the waits that ended) and that has
// not ended WatchdogPeriod after that was seen is a lost wakeup; no wait
// ending for StallPeriod with no signal pending is a stall (the threads did
// not run: the machine, or the Go scheduler), reported as such.
type watchdog struct {
	prog, sig        int64
	progAt, signalAt time.Time
}

type watchVerdict int

const (
	fine watchVerdict = iota
	lost
	stalled
)

// StallPeriod: no wait ended, and no signal is pending, for this long.
const StallPeriod = 30 * time.Second

func (w *watchdog) look(prog, sig int64, now time.Time) watchVerdict {
	if w.progAt.IsZero() || prog != w.prog {
		w.prog, w.progAt, w.signalAt = prog, now, time.Time{}
	}
	if sig > prog {
		if w.signalAt.IsZero() || sig != w.sig {
			w.sig, w.signalAt = sig, now
		}
		if now.Sub(w.signalAt) > WatchdogPeriod {
			return lost
		}
		return fine
	}
	if now.Sub(w.progAt) > StallPeriod {
		return stalled
	}
	return fine
}

// StallError is a job in which no wait ended for StallPeriod while no
// signal was pending: not a lost wakeup, a run that did not get the CPU.
type StallError struct {
	Row, Placement string
	Gap            time.Duration
	Wait           int64
}

func (e *StallError) Error() string {
	return fmt.Sprintf("stalled: %s at gap %v (%s): before wait %d's signal, neither thread progressed for %v; the run is stopped",
		e.Row, e.Gap, e.Placement, e.Wait, StallPeriod)
}

// release aborts j: the abort flag, then the word and the gates released
// every 10 ms until both threads are back (at most a second). It reports
// whether they came back.
func (p *pair) release(j *job, back int) bool {
	j.s.abort.Store(true)
	deadline := time.Now().Add(time.Second)
	for back < 2 && time.Now().Before(deadline) {
		for _, w := range []*word{&j.s.w, &j.s.w2} {
			w.release()
		}
		for _, g := range []*gate{&j.s.arm, &j.s.waiting, &j.s.done} {
			g.releaseGate()
		}
		select {
		case <-p.finished:
			back++
		case <-time.After(10 * time.Millisecond):
		}
	}
	return back == 2
}

// No keep-alive: the futex parker's (a runtime.Gosched every 5 ms of
// parks, docs/scheduler.md) stalled these loops for seconds under load. A
// locked thread that yields hands its P off and waits for another M to
// hand it back, and with both threads pinned and the machine's two CPUs
// shared with other processes (load 15), that took over 4 s in 2 of 800
// jobs of 220 waits (AMD EPYC f26m2 guest); without it, none in 800. The
// Gosched was between waits, so no figure changed, but the run stalled.

// reads are the waiter's clocks around a wait.
type reads struct{ cpu, vol, invol int64 }

func readNow() reads {
	c := threadCPU()
	v, iv := threadSwitches()
	return reads{c, v, iv}
}

// record keeps wait i of j (unless it is a warm-up one): its latency, how
// late it ended, and what the clocks read around it.
func (p *pair) record(j *job, i int, lat, late int64, r0, r1 reads) {
	if k := i - 1 - j.warmup; k >= 0 {
		j.out[k] = sample{lat: lat, late: late, cpu: max(r1.cpu-r0.cpu-p.overhead, 0),
			slept: r1.vol > r0.vol, csw: int32(r1.vol + r1.invol - r0.vol - r0.invol)}
	}
}

// clockOverhead is the median CPU time of the reads around an empty wait.
func clockOverhead() int64 {
	const n = 201
	d := make([]int64, n)
	for i := range d {
		a := readNow()
		b := readNow()
		d[i] = b.cpu - a.cpu
	}
	slices.Sort(d)
	return d[n/2]
}

// waiter is the waiter's side of a job.
func (p *pair) waiter(j *job) {
	switch j.kind {
	case jobCalib:
		p.calibrate(j)
	case jobPing:
		p.pingA(j)
	default:
		p.waits(j)
	}
}

// waker is the waker's side of a job.
func (p *pair) waker(j *job) {
	switch {
	case j.kind == jobCalib:
	case j.kind == jobPing:
		p.pingB(j)
	default:
		p.signals(j)
	}
}

// The waker leads each wait, as a lock holder does: it takes the lock (a
// foreign lock's Lock; the word rows need none) and publishes arm; the
// waiter, woken by it, reads its clocks and waits (the row's spin phase,
// then the park; or the foreign Lock); the waker busy-waits until start +
// gap on the monotonic clock (its critical section), stamps the signal
// time and signals (or unlocks); the waiter, back, reads its clocks, clears
// the word and publishes done, which the waker waits for before the next.
//
// Across CPUs both sides spin on the gates, and the start is the waiter's:
// it stamps it after its clock reads and says so (waiting), and the waker
// counts the gap from there, a few hundred ns later. On one CPU both sleep
// on the gates, and the start is the waker's, stamped right before its arm:
// the holder does not wait for the waiter (its critical section does not),
// and the waiter, woken by the arm, may preempt it and wait while the
// holder cannot run, which is what oversubscription is about; if it does
// not, the holder finishes first and the waiter finds the signal set.
// waits is the waiter's loop.
func (p *pair) waits(j *job) {
	s := j.s
	other := true
	if j.r.name == RowGo {
		other = otherPRunning()
	}
	var phase spinPhase
	if j.r.phase != nil {
		phase = j.r.phase(other, j.competitive)
	}
	for i := 1; i <= j.total(); i++ {
		if !s.arm.await(int32(i), p.sleepy, &s.abort) {
			break
		}
		r0 := readNow()
		if !p.sleepy {
			s.start.Store(monoclock.Nanotime())
			s.waiting.publish(int32(i), false)
		}
		if j.lock != nil {
			j.lock.Lock()
		} else if !phase(&s.w) {
			s.w.park()
		}
		t1 := monoclock.Nanotime()
		r1 := readNow()
		if j.lock != nil {
			j.lock.Unlock()
		}
		if s.abort.Load() || s.w.v.Load() == wordAbort {
			break
		}
		p.record(j, i, t1-s.sig.Load(), t1-s.start.Load()-j.gap, r0, r1)
		s.w.v.Store(wordEmpty)
		s.progress.Add(1)
		s.done.publish(int32(i), p.sleepy)
	}
	j.spurious = s.w.spurious
}

// signals is the waker's loop (the word rows and a foreign lock's).
func (p *pair) signals(j *job) {
	s := j.s
	for i := 1; i <= j.total(); i++ {
		if j.lock != nil {
			j.lock.Lock()
		}
		if p.sleepy {
			s.start.Store(monoclock.Nanotime())
		}
		s.arm.publish(int32(i), p.sleepy)
		if !p.sleepy && !s.waiting.await(int32(i), false, &s.abort) {
			if j.lock != nil {
				j.lock.Unlock()
			}
			return
		}
		for due := s.start.Load() + j.gap; monoclock.Nanotime() < due; {
			procyield(1)
		}
		s.sig.Store(monoclock.Nanotime())
		if j.lock != nil {
			j.lock.Unlock()
		} else {
			s.w.signal()
		}
		s.signalled.Store(int64(i))
		if !s.done.await(int32(i), p.sleepy, &s.abort) {
			return
		}
	}
}

// pingA and pingB are the park+wake ping-pong: each side parks at once on
// its own word, and wakes the other's. A (the waiter's thread) records its
// wake latency and CPU per park; B stamps and wakes A, then parks, and
// clears its word when woken. The order of resets (a side clears its
// own word before it signals the other's) means a signal never finds the
// word it sets still holding the last one.
func (p *pair) pingA(j *job) {
	s := j.s
	for i := 1; i <= j.total(); i++ {
		r0 := readNow()
		s.w.park()
		t1 := monoclock.Nanotime()
		r1 := readNow()
		if s.abort.Load() || s.w.v.Load() == wordAbort {
			break
		}
		s.progress.Add(1)
		p.record(j, i, t1-s.sig.Load(), 0, r0, r1)
		s.w.v.Store(wordEmpty)
		s.w2.signal()
	}
	j.spurious = s.w.spurious
}

func (p *pair) pingB(j *job) {
	s := j.s
	for i := 1; i <= j.total(); i++ {
		s.sig.Store(monoclock.Nanotime())
		s.w.signal()
		s.signalled.Store(int64(i))
		s.w2.park()
		if s.abort.Load() || s.w2.v.Load() == wordAbort {
			return
		}
		s.w2.v.Store(wordEmpty)
	}
}

// calibrate times the row's spin phase alone: on a word nobody signals it
// runs until its policy gives up (the budget it spends before a park),
// warmup + n times on the waiter's thread.
func (p *pair) calibrate(j *job) {
	phase := j.r.phase(otherPRunning(), j.competitive)
	for i := 1; i <= j.total(); i++ {
		var w word
		t0 := monoclock.Nanotime()
		phase(&w)
		t1 := monoclock.Nanotime()
		j.s.progress.Add(1)
		if k := i - 1 - j.warmup; k >= 0 {
			j.calib[k] = t1 - t0
		}
	}
}

// otherPRunning is runtime_canSpin's test of the other Ps from outside
// the runtime: at least one P besides the caller's is held (running Go
// code, or in a system call, where Go 1.26 leaves it held,
// src/runtime/metrics.go's schedStatsAggregate), read from runtime/metrics;
// true where the metrics are absent.
func otherPRunning() bool {
	s := []metrics.Sample{{Name: "/sched/goroutines/running:goroutines"}, {Name: "/sched/goroutines/not-in-go:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return true
	}
	return s[0].Value.Uint64()+s[1].Value.Uint64() >= 2
}
