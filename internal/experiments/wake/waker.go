package wake

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// roundRobin pins thread i to the i-th allowed CPU modulo their number,
// perf's placement (tools/perf/bench/futex-wake.c:113); nil where the
// affinity cannot be read (the threads then run unpinned).
func roundRobin(n int) []int {
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = cpus[i%len(cpus)]
	}
	return out
}

// Bounds of one run: thread start-up and the sleep check, and the waker's
// loop and the waiters' exit (a lost wakeup beyond them fails the run).
func readyBound(n int) time.Duration { return 10*time.Second + time.Duration(n)*10*time.Millisecond }

func fireBound(n int) time.Duration { return 10*time.Second + time.Duration(n)*10*time.Millisecond }

// pollInterval is the pause between two polls of the waiters' state.
const pollInterval = 50 * time.Microsecond

// goroutineSettle is how long sync's waiters (goroutines, no thread state
// to read) get after counting in, as herd's settle.
func goroutineSettle(n int) time.Duration {
	return 2*time.Millisecond + time.Duration(n)*20*time.Microsecond
}

// interleaved runs rounds rounds of a group's configurations, one round of
// each in turn (round 0 of every configuration, then round 1, ...), so that
// a drift of the machine spreads over all of them: run(r, k, c) measures
// round r of group[k], after report. It stops at the first error, or with
// ctx's error when interrupted between two runs.
func interleaved(ctx context.Context, rounds int, group []cfgSpec, report func(cfgSpec, int), run func(r, k int, c cfgSpec) error) error {
	for r := 0; r < rounds; r++ {
		for k, c := range group {
			if driver.Interrupted(ctx) {
				return ctx.Err()
			}
			report(c, r)
			if err := run(r, k, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// runWakerGroup runs the wake, wake-parallel and requeue configurations of
// one group, run-interleaved, on one waker: a locked thread of its own,
// unpinned, as perf's main thread.
func runWakerGroup(ctx context.Context, group []cfgSpec, o Options, records []*results.Config, report func(cfgSpec, int)) error {
	runs := make([][]runSample, len(group))
	errc := make(chan error, 1)
	osthread.Go(func() {
		errc <- interleaved(ctx, o.Runs, group, report, func(r, k int, c cfgSpec) error {
			s, err := oneRun(ctx, c, o, roundRobin(c.n))
			if err != nil {
				return err
			}
			runs[k] = append(runs[k], s)
			return nil
		})
	})
	if err := <-errc; err != nil {
		return err
	}
	for k, c := range group {
		records[k].Params["sleep_check"] = runs[k][0].sleepCheck
		if err := fillWaker(records[k], c, runs[k]); err != nil {
			return err
		}
	}
	return nil
}

// runSample is what one run measured.
type runSample struct {
	wakerNs    []int64 // the run's waker time; wake-parallel: one per waker
	woken      int     // -1: the API does not say
	calls      int
	perCall    []int64
	sleepCheck string
}

// oneRun is one run: fresh waiters, seen asleep, the settle, the timed
// wake, every waiter gone.
func oneRun(ctx context.Context, c cfgSpec, o Options, cpus []int) (runSample, error) {
	var s runSample
	g, err := c.im.newGroup(c.n, cpus)
	if err != nil {
		return s, fmt.Errorf("wake %s: %w", c.im.name, err)
	}
	s.sleepCheck, err = awaitReady(ctx, g, c.n)
	if err == nil {
		err = g.pinError()
	}
	if err == nil {
		if cs, ok := g.(interface{ settleInFire(time.Duration) }); ok && c.bench != BenchParallel {
			cs.settleInFire(o.Settle)
		} else {
			osthread.Sleep(o.Settle)
		}
		err = ctx.Err()
	}
	if err != nil {
		if !g.close() {
			return s, fmt.Errorf("wake %s N=%d: the waiters could not be released after: %w", c.im.name, c.n, err)
		}
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return s, err
		}
		return s, fmt.Errorf("wake %s N=%d: %w", c.im.name, c.n, err)
	}
	var fr fireResult
	if c.bench == BenchParallel {
		fr, s.wakerNs = fireParallel(g, c.n, c.m)
	} else {
		s.perCall = make([]int64, 4*c.n+16)
		fr = g.fire(c.bench, c.k, s.perCall, fireBound(c.n))
		s.perCall = s.perCall[:min(fr.calls, len(s.perCall))]
		s.wakerNs = []int64{fr.totalNs}
	}
	s.woken, s.calls = fr.done, fr.calls
	left := g.join(fireBound(c.n))
	released := g.close()
	switch {
	case fr.timedOut || !left:
		return s, fmt.Errorf("wake: lost wakeup: %s %s N=%d: not every waiter left its wait within %v of the %s", c.im.name, c.bench, c.n, fireBound(c.n), c.bench)
	case !released:
		return s, fmt.Errorf("wake: %s %s N=%d: waiters still blocked after a forced release", c.im.name, c.bench, c.n)
	case fr.done >= 0 && fr.done != c.n:
		return s, fmt.Errorf("wake correctness failure: %s %s N=%d: the calls reported %d threads, want %d", c.im.name, c.bench, c.n, fr.done, c.n)
	}
	return s, nil
}

// awaitReady waits until every waiter is in its wait: counted in (lot:
// queued on its key), then, where thread state is readable, each thread
// seen sleeping ('S' in /proc/self/task/TID/stat); goroutines (sync) get a
// settle instead. It returns how that was established.
func awaitReady(ctx context.Context, g group, n int) (string, error) {
	deadline := time.Now().Add(readyBound(n))
	for g.ready() < n {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("only %d of %d waiters ready within %v", g.ready(), n, readyBound(n))
		}
		time.Sleep(pollInterval)
	}
	switch {
	case g.threads() && osthread.StateReadable():
		return "count+proc-state-S", osthread.AwaitSleeping(n, g.tid, deadline, pollInterval)
	case g.threads():
		sleepCtx(ctx, goroutineSettle(n))
		return fmt.Sprintf("count+settle-%v (%s: no thread state to read)", goroutineSettle(n), runtime.GOOS), nil
	}
	sleepCtx(ctx, goroutineSettle(n))
	return fmt.Sprintf("count+settle-%v (goroutines: no thread state)", goroutineSettle(n)), nil
}

// sleepCtx sleeps d, or until ctx is cancelled.
func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// fireParallel is perf's wake-parallel: m waker threads (locked, unpinned)
// released together, each timing its one call that wakes n/m
// (tools/perf/bench/futex-wake-parallel.c:76-95 at commit 20693782766d).
func fireParallel(g group, n, m int) (fireResult, []int64) {
	k := n / m
	var (
		readyN atomic.Int64
		start  = make(chan struct{})
		wg     sync.WaitGroup
		ns     = make([]int64, m)
		woken  = make([]int, m)
	)
	for j := 0; j < m; j++ {
		wg.Add(1)
		osthread.Go(func() {
			defer wg.Done()
			readyN.Add(1)
			<-start
			t0 := monoclock.Nanotime()
			woken[j] = g.wakeCall(k)
			ns[j] = monoclock.Nanotime() - t0
		})
	}
	for readyN.Load() < int64(m) {
		time.Sleep(pollInterval)
	}
	close(start)
	wg.Wait()
	res := fireResult{calls: m}
	for j := range ns {
		res.totalNs = max(res.totalNs, ns[j])
		res.done += woken[j]
	}
	return res, ns
}

// fillWaker turns a configuration's runs into its rounds and summary.
func fillWaker(cfg *results.Config, c cfgSpec, runs []runSample) error {
	hist := driver.NewHist()
	var all, woken, calls []float64
	for _, s := range runs {
		m := map[string]float64{}
		var xs []float64
		for _, v := range s.wakerNs {
			xs = append(xs, float64(v))
			all = append(all, float64(v))
		}
		mean, sem := meanSEM(xs)
		m[mWakerNs] = mean
		// The judged figures carry the run's own value in every round:
		// compare and the gate judge a configuration by its rounds (the
		// runs), and the summary's mean and median are over them.
		m[MWakerMean], m[MWakerMedian] = mean, mean
		if len(xs) > 1 {
			m[MWakerSEM] = sem // wake-parallel's per-run (+-), over its wakers
		}
		m[MPerThread] = mean / float64(c.n)
		m[MCalls] = float64(s.calls)
		calls = append(calls, float64(s.calls))
		if s.woken >= 0 {
			m[MWoken] = float64(s.woken)
			woken = append(woken, float64(s.woken))
		}
		if c.bench == BenchParallel {
			driver.RecordAll(hist, s.wakerNs...)
		} else {
			driver.RecordAll(hist, s.perCall...)
		}
		cfg.Rounds = append(cfg.Rounds, results.Round{Metrics: m})
	}
	// runs is not empty (a configuration runs at least one round) and each
	// run has at least one waker's figure: all and calls have values.
	mean, sem := meanSEM(all)
	cfg.Summary = map[string]float64{
		MWakerMean:   mean,
		MWakerSEM:    sem,
		MWakerMedian: stats.Median(all),
		MWakerP99:    stats.NearestRank(slices.Sorted(slices.Values(all)), 0.99),
		MPerThread:   mean / float64(c.n),
		MCalls:       stats.Mean(calls),
		MCallMedian:  float64(hist.ValueAtQuantile(50)),
		MCallP99:     float64(hist.ValueAtQuantile(99)),
	}
	if len(woken) == len(runs) {
		cfg.Summary[MWoken] = stats.Mean(woken) // every run counted its woken: not none
	}
	if len(cfg.Rounds) > 0 {
		enc, err := results.EncodeHist(hist)
		if err != nil {
			return fmt.Errorf("wake %s: %w", cfg.Key, err)
		}
		cfg.Rounds[0].Histogram = enc
	}
	return nil
}
