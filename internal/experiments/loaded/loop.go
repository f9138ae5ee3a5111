package loaded

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
)

// worker is one worker thread's state.
type worker struct {
	s    slot
	q    ring
	next *worker // the closed loop's list of workers waiting for a request (under the list's CAS)
	// Recorded by the worker only; read after it exited.
	wake, req, svc *hdrhistogram.Histogram
	done           int64  // requests completed inside the window
	left           int64  // requests still queued at the end
	sink           uint64 // the work's result, kept live
	_              [64]byte
}

// messenger is one message thread and its workers.
type messenger struct {
	s       slot
	workers []*worker
	list    atomic.Pointer[worker] // closed loop
	dropped int64
	_       [64]byte
}

// histogram for one thread's samples: 1 ns to 60 s, 2 significant figures
// (1% resolution, about 30 KB: one per worker and figure).
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60e9, 2) }

func record(h *hdrhistogram.Histogram, v int64) {
	_ = h.RecordValue(min(max(v, 1), 60e9))
}

// roundStarted, when set (tests only), is called as every round starts,
// with its workers and its stop flag: fault injection.
var roundStarted func(m *mechanism, workers []*worker, stop *atomic.Bool)

// window is the measured window [start, end) on the clock.
type window struct{ start, end int64 }

func (w window) in(t int64) bool { return t >= w.start && t < w.end }

// runOnce runs one round of a configuration and returns its metrics and
// the wakeup-latency histogram.
func runOnce(ctx context.Context, c cfgSpec, o Options, steps int) (map[string]float64, *hdrhistogram.Histogram, error) {
	m := &c.mech
	var (
		stop   atomic.Bool
		readyN atomic.Int64
		wg     sync.WaitGroup
		pinErr atomic.Pointer[error]
	)
	go1 := func(f func()) { driver.Start(&wg, m.goroutines, f) }
	msgs := make([]*messenger, o.MessageThreads)
	var all []*worker
	for i := range msgs {
		ms := &messenger{}
		msgs[i] = ms
		for j := 0; j < c.workers; j++ {
			w := &worker{wake: newHist(), req: newHist(), svc: newHist()}
			ms.workers = append(ms.workers, w)
			all = append(all, w)
		}
	}
	var win window // set before the start signal; read after it
	start := make(chan struct{})
	sleepNs := int64(o.Sleep)

	for _, ms := range msgs {
		for _, w := range ms.workers {
			go1(func() {
				m.setup(&w.s)
				hasWork := func() bool { return !w.q.empty() || stop.Load() }
				seed := uint64(monoclock.Nanotime())
				onList := false // closed loop: on ms's list, no request taken since
				readyN.Add(1)
				<-start
				for {
					for {
						intended, ok := w.q.pop()
						if !ok {
							break
						}
						// The message thread took w off its list before it
						// queued this request (closedLoop).
						onList = false
						s := monoclock.Nanotime()
						if sleepNs > 0 {
							osthread.Sleep(time.Duration(sleepNs))
						}
						seed = work(steps, seed)
						e := monoclock.Nanotime()
						if win.in(intended) {
							record(w.req, e-intended)
							record(w.svc, e-s)
						}
						if win.in(e) {
							w.done++
						}
					}
					if stop.Load() {
						break
					}
					// The closed loop: back on the message thread's list
					// (its queue is empty: it takes one request at a
					// time), then wait for the next request. Once per
					// request: a wake is not a request. A poster that read
					// sleepy during this worker's previous sleep can land
					// its CAS on this sleep's sleepy (the state word's ABA,
					// mech.go), so the worker can wake with nothing queued
					// while still on the list; pushing it again would link
					// it into the list twice and the message thread would
					// walk a cycle.
					if c.closed && !onList {
						ms.push(w)
						onList = true
						m.post(&ms.s)
					}
					if m.sleep(&w.s, hasWork) {
						t := monoclock.Nanotime()
						if st := w.s.stamp.Load(); win.in(st) {
							record(w.wake, t-st)
						}
					}
				}
				w.left = int64(w.q.size())
				w.sink = seed
			})
		}
	}
	for _, ms := range msgs {
		go1(func() {
			if !m.goroutines {
				if err := osthread.SetTimerSlack(time.Nanosecond); err != nil {
					pinErr.CompareAndSwap(nil, &err)
				}
			}
			m.setup(&ms.s)
			readyN.Add(1)
			<-start
			if c.closed {
				ms.closedLoop(m, &stop, win)
			} else {
				ms.openLoop(m, &stop, win, float64(c.load)/100*o.capacity()/float64(o.MessageThreads), o.Arrival, !m.goroutines)
			}
		})
	}
	for readyN.Load() < int64(len(all)+len(msgs)) {
		time.Sleep(50 * time.Microsecond)
	}
	t0 := monoclock.Nanotime()
	win = window{start: t0 + int64(o.Warmup), end: t0 + int64(o.Warmup) + int64(o.Duration)}
	close(start)
	if roundStarted != nil {
		roundStarted(m, all, &stop)
	}
	// Sleep out warm-up + window, then give the open loop's backlog a
	// drain of at most one window before stopping (what is left is
	// counted as unfinished).
	sleepUntil(ctx, win.start)
	u0, _ := osthread.ProcessUsage()
	sleepUntil(ctx, win.end)
	u1, _ := osthread.ProcessUsage()
	drainEnd := monoclock.Nanotime() + int64(o.Duration)
	for !c.closed && ctx.Err() == nil && monoclock.Nanotime() < drainEnd && !allEmpty(all) {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	for _, ms := range msgs {
		m.forcePost(&ms.s)
		for _, w := range ms.workers {
			m.forcePost(&w.s)
		}
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30*time.Second + time.Duration(len(all))*10*time.Millisecond):
		return nil, nil, fmt.Errorf("loaded %s: lost wakeup: threads still waiting 30 s after the stop", c.key())
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if p := pinErr.Load(); p != nil {
		return nil, nil, fmt.Errorf("loaded %s: setting the message thread's timer slack: %w", c.key(), *p)
	}

	wake, req, svc := driver.NewHist(), driver.NewHist(), driver.NewHist()
	var done, left, dropped int64
	for _, w := range all {
		wake.Merge(w.wake)
		req.Merge(w.req)
		svc.Merge(w.svc)
		done += w.done
		workSink += w.sink
		left += w.left
	}
	for _, ms := range msgs {
		dropped += ms.dropped
	}
	secs := float64(o.Duration) / 1e9
	res := map[string]float64{
		MWakeups: float64(wake.TotalCount()), MRequests: float64(req.TotalCount()),
		MRPS: float64(done) / secs, MDropped: float64(dropped), MUnfinished: float64(left),
		MWorkers: float64(len(all)),
		MCPUBusy: float64(u1.UserNs+u1.SysNs-u0.UserNs-u0.SysNs) / float64(o.Duration),
	}
	// A figure without samples is absent, never 0: no worker slept in the
	// window (each always had a request queued: saturated), or none
	// completed.
	if wake.TotalCount() > 0 {
		res[MWakeP50], res[MWakeP90], res[MWakeP99], res[MWakeP999] = q(wake, 50), q(wake, 90), q(wake, 99), q(wake, 99.9)
		res[MWakeMax] = float64(wake.Max())
	}
	if req.TotalCount() > 0 {
		res[MReqP50], res[MReqP90], res[MReqP99], res[MReqP999] = q(req, 50), q(req, 90), q(req, 99), q(req, 99.9)
		res[MReqMax] = float64(req.Max())
		res[MSvcP50], res[MSvcP99] = q(svc, 50), q(svc, 99)
	}
	if done > 0 {
		res[MCswPerReq] = float64(u1.Switches()-u0.Switches()) / float64(done)
	}
	if !c.closed {
		res[MLoad] = float64(c.load)
		res[MOffered] = float64(c.load) / 100 * o.capacity()
	}
	return res, wake, nil
}

func q(h *hdrhistogram.Histogram, p float64) float64 { return float64(h.ValueAtQuantile(p)) }

func allEmpty(ws []*worker) bool {
	for _, w := range ws {
		if !w.q.empty() {
			return false
		}
	}
	return true
}

// sleepUntil sleeps until the clock reads t, or ctx is cancelled.
func sleepUntil(ctx context.Context, t int64) {
	for {
		d := t - monoclock.Nanotime()
		if d <= 0 || ctx.Err() != nil {
			return
		}
		time.Sleep(min(time.Duration(d), 50*time.Millisecond))
	}
}

// push adds w to the closed loop's list (schbench's xlist_add,
// schbench.c:866-880).
func (ms *messenger) push(w *worker) {
	for {
		old := ms.list.Load()
		w.next = old
		if ms.list.CompareAndSwap(old, w) {
			return
		}
	}
}

// pace sleeps the message thread until the clock reads t: its own
// nanosleep with a 1 ns timer slack (a locked thread), or time.Sleep
// (goroutines).
func pace(t int64, thread bool) {
	d := time.Duration(t - monoclock.Nanotime())
	if d <= 0 {
		return
	}
	if thread {
		osthread.Sleep(d)
	} else {
		time.Sleep(d)
	}
}

// openLoop sends requests at rate per second to its workers round-robin
// (schbench's -R loop: cur_tid++ % worker_threads, schbench.c:1280-1282)
// until the window ends: uniform arrivals at their intended start times,
// or a burst at the top of every second.
func (ms *messenger) openLoop(m *mechanism, stop *atomic.Bool, win window, rate float64, arrival string, thread bool) {
	if rate <= 0 {
		return
	}
	t0 := monoclock.Nanotime()
	rr := 0
	send := func(intended int64) {
		w := ms.workers[rr%len(ms.workers)]
		rr++
		if !w.q.push(intended) {
			ms.dropped++
			return
		}
		m.post(&w.s)
	}
	if arrival == Burst {
		per := int(math.Round(rate))
		for period := t0; period < win.end && !stop.Load(); period += int64(time.Second) {
			pace(period, thread)
			for i := 0; i < per && !stop.Load(); i++ {
				send(period)
			}
		}
		return
	}
	interval := 1e9 / rate
	for i := 0; !stop.Load(); i++ {
		intended := t0 + int64(float64(i)*interval)
		if intended >= win.end {
			return
		}
		pace(intended, thread)
		send(intended)
	}
}

// closedLoop is schbench's default mode (run_msg_thread,
// schbench.c:1166-1178): wait until workers are back, then give each one
// its next request, at once.
func (ms *messenger) closedLoop(m *mechanism, stop *atomic.Bool, win window) {
	hasWork := func() bool { return ms.list.Load() != nil || stop.Load() }
	for !stop.Load() {
		for w := ms.list.Swap(nil); w != nil; {
			next := w.next
			w.next = nil
			if !w.q.push(monoclock.Nanotime()) {
				ms.dropped++
			}
			m.post(&w.s)
			w = next
		}
		m.sleep(&ms.s, hasWork)
	}
}
