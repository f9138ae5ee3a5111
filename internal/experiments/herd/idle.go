package herd

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// The idle pool (--mode=idle): N workers sleep on the condition variable
// and one item of work arrives per notify, as in a thread pool waiting for
// requests. Per request the notifier waits until every worker is back in
// its wait and seen asleep (the count under the mutex, then /proc, as the
// herd's repeats), reads each worker's CPU clock and switches from
// outside, pushes one item under the mutex and notifies it three ways,
// side by side: notify_one (wake "one"), notify_all waking everyone
// ("all": std's FUTEX_WAKE(INT_MAX), lot-wakeall), and notify_all as
// parking_lot does it, UnparkRequeue onto the mutex ("requeue": lot,
// futex-requeue). A worker that leaves its wait takes the item if there is
// one (stamping the time) or, finding none, counts a wake that found
// nothing and waits again.
//
// Per request: latency = the notify -> a worker holds the item; cpu = all
// workers' CPU from the request to the next (their thread CPU clocks, read
// while they sleep); wasted = the wakes that found nothing; csw = the
// workers' context switches. A request not taken within settleBound
// (2 s + 10 ms per worker) of its notify lost its wakeup: the run fails
// naming it.

// Pool modes.
const (
	ModeHerd = "herd" // every waiter has work (E6)
	ModeIdle = "idle" // one item per notify to an idle pool
)

// Modes are the --mode values.
var Modes = []string{ModeHerd, ModeIdle}

// MaxRequests bounds the idle pool's requests per repeat.
const MaxRequests = 10_000

// The wakes of the idle pool.
const (
	wakeOne     = "one"
	wakeAll     = "all"
	wakeRequeue = "requeue"
)

// withMode checks the mode and what it allows. The herd keeps its echo as
// it was (no mode, no requests); the idle pool takes every wake side by
// side (--impl chooses among them), threads only, no anatomy.
func (o Options) withMode() (Options, error) {
	if o.Mode == "" {
		o.Mode = ModeHerd
	}
	if err := driver.CheckChoice("Mode", "mode", o.Mode, Modes); err != nil {
		return o, err
	}
	if o.Mode == ModeHerd {
		o.Mode, o.Requests = "", 0
		return o, nil
	}
	if err := driver.CheckCount("Requests", "requests", o.Requests, 1, MaxRequests); err != nil {
		return o, err
	}
	switch {
	case !slices.Equal(o.Notify, DefaultOptions().Notify):
		return o, driver.Bad("Notify", "the idle pool runs notify_one, notify_all and requeue side by side: choose among them with --impl "+
			"(lot: one and requeue; lot-wakeall: all; futex-broadcast: one and all; futex-requeue: requeue)")
	case o.Anatomy:
		return o, driver.Bad("Anatomy", "traces the herd mode only (every waiter has work), not the idle pool")
	case slices.Contains(o.Participants, driver.Goroutines) || slices.Contains(o.Participants, driver.All):
		return o, driver.Bad("Participants", "the idle pool's workers are locked threads (--participants=threads)")
	}
	return o, nil
}

// idleRow is one implementation and one way to wake.
type idleRow struct {
	im   implSpec
	wake string
}

// idleWakes are the wakes an implementation has: its notify_one, and its
// notify_all (which requeues onto the mutex for lot and futex-requeue).
func idleWakes(im implSpec) []string {
	switch im.name {
	case "lot":
		return []string{wakeOne, wakeRequeue}
	case "lot-wakeall":
		return []string{wakeAll}
	case "futex-requeue":
		return []string{wakeRequeue}
	}
	return []string{wakeOne, wakeAll}
}

// idleRows are the rows of the chosen implementations, and a warning for
// each that has no idle pool (the C herd, goroutines).
func idleRows(impls []implSpec) (rows []idleRow, warnings []string) {
	for _, im := range impls {
		switch {
		case im.c:
			warnings = append(warnings, im.label()+" skipped: the idle pool is Go code on locked threads; the C herd has none")
			continue
		case im.goroutines:
			warnings = append(warnings, im.label()+" skipped: the idle pool's workers are locked threads, not goroutines")
			continue
		}
		for _, w := range idleWakes(im) {
			rows = append(rows, idleRow{im, w})
		}
	}
	return rows, warnings
}

func idleKey(r idleRow, placement string, held bool, n int) string {
	return fmt.Sprintf("%s/%s/idle/wake=%s/lock-held=%v/n=%d", r.im.label(), placement, r.wake, held, n)
}

// request is one request's figures.
type request struct {
	lat, cpu, csw int64
	wasted        int
	costKnown     bool
}

// idleSlot is one worker's tid, apart from the others'.
type idleSlot struct {
	tid int
	pin error
	_   [48]byte
}

// pool is one repeat's pool; the fields under the mutex are the
// primitive's.
type pool struct {
	prim    primitive
	queue   []int   // under the mutex
	closing bool    // under the mutex
	inWait  int     // under the mutex: workers inside a Wait call
	wasted  int     // under the mutex: wakes that found nothing
	takenAt []int64 // under the mutex: when request r was taken (0: not yet)
	slots   []idleSlot
	ready   sync.WaitGroup // every worker's tid is set
	exited  sync.WaitGroup
}

func (pl *pool) worker(i int, cpu int) {
	defer pl.exited.Done()
	s := &pl.slots[i]
	if cpu >= 0 {
		s.pin = osthread.Pin(cpu)
	}
	s.tid = osthread.Tid()
	pl.ready.Done()
	pl.prim.Lock()
	for {
		for len(pl.queue) == 0 && !pl.closing {
			pl.inWait++
			pl.prim.Wait()
			pl.inWait--
			if len(pl.queue) == 0 && !pl.closing {
				pl.wasted++
			}
		}
		if len(pl.queue) == 0 {
			break // closing
		}
		r := pl.queue[0]
		pl.queue = pl.queue[1:]
		pl.takenAt[r] = monoclock.Nanotime()
	}
	pl.prim.Unlock()
}

// settleBound is how long the pool may take to be all asleep again.
func settleBound(n int) time.Duration { return 2*time.Second + time.Duration(n)*10*time.Millisecond }

// runPool runs one repeat: a fresh pool of n workers, requests served one
// at a time, on the notifier's locked thread.
func runPool(ctx context.Context, row idleRow, n, requests int, held bool, notifierCPU int, workerCPUs []int) ([]request, error) {
	pl := &pool{prim: row.im.newPrim(), takenAt: make([]int64, requests), slots: make([]idleSlot, n)}
	pl.ready.Add(n)
	pl.exited.Add(n)
	for i := range n {
		cpu := -1
		if workerCPUs != nil {
			cpu = workerCPUs[i]
		}
		osthread.Go(func() { pl.worker(i, cpu) })
	}
	pl.ready.Wait()
	type result struct {
		reqs []request
		err  error
	}
	resc := make(chan result, 1)
	osthread.Go(func() {
		reqs, err := pl.serve(ctx, row, n, requests, held, notifierCPU)
		resc <- result{reqs, err}
	})
	res := <-resc
	// Release the workers (also after a failure), and wait for them a
	// little: one lost in its wait stays there.
	pl.prim.Lock()
	pl.closing = true
	pl.prim.NotifyAll(true)
	pl.prim.Unlock()
	exited := make(chan struct{})
	go func() { pl.exited.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(settleBound(n)):
		if res.err == nil {
			res.err = &repeatError{fmt.Sprintf("herd idle: lost wakeup: %s wake=%s N=%d: the workers did not all leave at the end", row.im.name, row.wake, n)}
		}
	}
	for i, s := range pl.slots {
		if s.pin != nil && res.err == nil {
			res.err = fmt.Errorf("herd idle: pinning worker %d: %w", i, s.pin)
		}
	}
	return res.reqs, res.err
}

// settle waits until request r-1 (if any) was taken and the pool is quiet
// again: every worker inside its Wait and, read right after the mutex was
// last released (which wakes anyone queued on it), every worker asleep
// (state S), all in one pass. A worker woken by a notify but queued on the
// mutex is inside its Wait and asleep too, but the release that follows
// each look wakes it, so a later pass sees it running. Not settled within
// settleBound: the item still queued is a lost wakeup; taken, a pool that
// does not come back to rest.
func (pl *pool) settle(ctx context.Context, row idleRow, n, r int) error {
	deadline := time.Now().Add(settleBound(n))
	for {
		pl.prim.Lock()
		c, taken := pl.inWait, r == 0 || pl.takenAt[r-1] != 0
		pl.prim.Unlock()
		if c == n && taken && pl.asleep(n) {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			if !taken {
				return &repeatError{fmt.Sprintf("herd idle: lost wakeup: %s wake=%s N=%d: request %d not taken %v after its notify (%d of %d workers in their wait)",
					row.im.name, row.wake, n, r-1, settleBound(n), c, n)}
			}
			return &repeatError{fmt.Sprintf("herd idle: %s wake=%s N=%d: %d of %d workers back asleep in their wait %v after request %d",
				row.im.name, row.wake, n, c, n, settleBound(n), r-1)}
		}
		time.Sleep(pollInterval)
	}
}

// asleep reports whether every worker reads S in one pass (true where no
// thread state can be read: the count alone then).
func (pl *pool) asleep(n int) bool {
	if !threadStateReadable() {
		return true
	}
	for i := range n {
		if st, err := osthread.State(pl.slots[i].tid); err != nil || st != 'S' {
			return false
		}
	}
	return true
}

// serve is the notifier: per request, settle, read the workers' costs,
// push and notify; the request before is complete at the next settle.
func (pl *pool) serve(ctx context.Context, row idleRow, n, requests int, held bool, cpu int) ([]request, error) {
	if cpu >= 0 {
		if err := osthread.Pin(cpu); err != nil {
			return nil, err
		}
	}
	reqs := make([]request, requests)
	t0 := make([]int64, requests)
	var prevCPU, prevCsw int64
	prevOK, prevWasted := false, 0
	for r := 0; r <= requests; r++ {
		if err := pl.settle(ctx, row, n, r); err != nil {
			return nil, err
		}
		var cpuNow, cswNow int64
		ok := true
		for i := range n {
			c, s, good := threadCost(pl.slots[i].tid)
			cpuNow, cswNow, ok = cpuNow+c, cswNow+s, ok && good
		}
		pl.prim.Lock()
		wasted := pl.wasted
		var taken int64
		if r > 0 {
			taken = pl.takenAt[r-1]
		}
		pl.prim.Unlock()
		if r > 0 {
			q := request{lat: taken - t0[r-1], wasted: wasted - prevWasted}
			if ok && prevOK {
				q.cpu, q.csw, q.costKnown = cpuNow-prevCPU, cswNow-prevCsw, true
			}
			reqs[r-1] = q
		}
		prevCPU, prevCsw, prevOK, prevWasted = cpuNow, cswNow, ok, wasted
		if r == requests {
			break
		}
		notify := func(h bool) {
			if row.wake == wakeOne {
				pl.prim.NotifyOne(h)
			} else {
				pl.prim.NotifyAll(h)
			}
		}
		pl.prim.Lock()
		pl.queue = append(pl.queue, r)
		if held {
			t0[r] = monoclock.Nanotime()
			notify(true)
			pl.prim.Unlock()
		} else {
			pl.prim.Unlock()
			t0[r] = monoclock.Nanotime()
			notify(false)
		}
	}
	return reqs, nil
}

// idleRound is one repeat's figures: the latency's distribution (an HDR
// histogram), the median CPU per request, the mean wasted wakes and
// switches per request.
func idleRound(reqs []request) (results.Round, error) {
	h := driver.NewHist()
	var cpu []float64
	var wasted, csw float64
	for _, q := range reqs {
		driver.RecordAll(h, q.lat)
		wasted += float64(q.wasted)
		if q.costKnown {
			cpu = append(cpu, float64(q.cpu))
			csw += float64(q.csw)
		}
	}
	m := map[string]float64{}
	driver.HistMetrics(h, m)
	n := float64(len(reqs))
	m[MWastedWakes] = wasted / n
	if len(cpu) > 0 {
		m[MCPUPerRequest] = stats.Median(cpu)
		m[MCswPerRequest] = csw / float64(len(cpu))
	}
	enc, err := results.EncodeHist(h)
	return results.Round{Metrics: m, Histogram: enc}, err
}

// runIdle runs the idle pool: per placement, lock-held and N, every row
// repeat-interleaved, a fresh pool per repeat.
func (p *herdPlan) runIdle(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o := p.o
	rows, warns := idleRows(p.Items)
	exp := &results.Experiment{Name: "herd", Metrics: IdleMetrics, Options: o.asMap(p.Items), Warnings: append(slices.Clone(p.Warnings), warns...)}
	if len(rows) == 0 {
		return nil, driver.Bad("Impls", "nothing to run: the idle pool runs lot, lot-wakeall, futex-broadcast, futex-requeue and a plugin's lock")
	}
	exp.Notes = append(exp.Notes, "idle pool: one item per notify to N sleeping workers; latency = notify -> a worker holds the item; "+
		"cpu = all workers' CPU per request (their thread CPU clocks, read while they sleep); wasted = wakes that found nothing; "+
		"csw = the workers' switches per request; --hold does not apply (a worker takes the item and waits again)")
	total := len(p.placements) * len(o.LockHeld) * len(o.Waiters) * o.Repeats * len(rows)
	done := 0
	var tally runenv.Tally
	var configs []*results.Config
	for _, pl := range p.placements {
		for _, held := range o.LockHeld {
			for _, n := range o.Waiters {
				notifierCPU, workerCPUs, err := driver.GroupCPUs("Placements", pl, n)
				if err != nil {
					return nil, err
				}
				rounds, w, err := repeatGroup(ctx, &tally, n, o.Repeats, len(rows), func(r, k int) (results.Round, error) {
					row := rows[k]
					progress.Report(done, total, fmt.Sprintf("%s (repeat %d/%d)", idleKey(row, pl, held, n), r+1, o.Repeats))
					reqs, err := runPool(ctx, row, n, o.Requests, held, notifierCPU, workerCPUs)
					done++
					if err != nil {
						return results.Round{}, err
					}
					return idleRound(reqs)
				})
				if err != nil {
					return nil, err
				}
				for k, row := range rows {
					ms := make([]map[string]float64, len(rounds[k]))
					for i, rd := range rounds[k] {
						ms[i] = rd.Metrics
					}
					c := &results.Config{Key: idleKey(row, pl, held, n), Impl: row.im.label(), Kind: row.im.kind, Placement: pl,
						Params: map[string]string{"n": fmt.Sprint(n), "wake": row.wake, "lock_held": fmt.Sprint(held), "mode": ModeIdle,
							"requests": fmt.Sprint(o.Requests), "gomaxprocs": fmt.Sprint(w.runtime.GOMAXPROCS)},
						Rounds: rounds[k], Summary: driver.MedianOfRounds(ms), Probe: w.probe}
					driver.RecordForeignLoad(c, w.foreign)
					configs = append(configs, c)
				}
			}
		}
	}
	progress.Report(total, total, "")
	exp.Runtime = tally.Runtime("syscall")
	exp.Configs = configs
	exp.Claims = IdleClaims(configs, runtime.NumCPU())
	return exp, nil
}

// The idle pool's figures (beside results.MMedian and friends, which are
// the latency from the notify until a worker holds the item).
const (
	MCPUPerRequest = "cpu_per_request_ns" // all workers' CPU per request (median over requests)
	MWastedWakes   = "wasted_wakes"       // wakes that found nothing, per request (mean)
	MCswPerRequest = "ctxsw_per_request"  // the workers' context switches per request (mean)
)

// IdleMetrics describes the idle pool's figures (the herd's mode idle):
// latency and CPU per request are judged and pivoted by N.
var IdleMetrics = []results.MetricSpec{
	{Key: results.MMedian, Header: "latency", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true, Benchstat: "ns/op",
		Pivot: &results.PivotSpec{Param: "n", Title: "idle pool: notify -> a worker holds the item (median)"},
		Plot:  &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "idle pool: notify -> a worker holds the item", Axis: "median latency (µs)"}},
	{Key: results.MP99, Header: "p99", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "p99-ns/op"},
	{Key: MCPUPerRequest, Header: "cpu/request", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "cpu-ns/op",
		Pivot: &results.PivotSpec{Param: "n", Title: "idle pool: every worker's CPU per request"},
		Plot:  &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "idle pool: every worker's CPU per request", Axis: "CPU per request (µs)"}},
	{Key: MWastedWakes, Header: "wasted", Better: results.Lower, Benchstat: "wasted-wakes/op"},
	{Key: MCswPerRequest, Header: "csw/request", Better: results.Lower, Benchstat: "ctxsw/op"},
	{Key: results.MMax, Header: "max", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
}
