package wake

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/machine"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Metric names of wake (summary keys; the per-run ones are in Rounds).
const (
	// The waker's time per run (wake, requeue) or per waker call
	// (wake-parallel), over the runs: perf's mean and (+-), and a median
	// and p99.
	MWakerMean   = "waker_mean_ns"
	MWakerSEM    = "waker_sem_pct" // standard error of the mean, % of the mean: perf's (+-X%)
	MWakerMedian = "waker_median_ns"
	MWakerP99    = "waker_p99_ns"
	MPerThread   = "per_thread_ns" // waker_mean_ns / N: the waker's cost per waiter
	MWoken       = "woken"         // mean woken (or requeued) per run, perf's "Wokeup %d of %d"
	MCalls       = "calls"         // mean calls per run
	MCallMedian  = "call_median_ns"
	MCallP99     = "call_p99_ns"
	// hash: per-thread operations per second (perf's "Averaged"), its
	// (+-), and the threads' sum.
	MOpsPerSec   = "ops_per_sec"
	MOpsSEM      = "ops_sem_pct"
	MOpsTotal    = "ops_total_per_sec"
	MNsPerOp     = "ns_per_op"
	MUnexpected  = "unexpected_ops"
	MItemsPerSec = "items_per_sec" // condvar
	MNsPerItem   = "ns_per_item"
	MCswPerItem  = "ctxsw_per_item"
	MWaitPerItem = "waits_per_item"
	// per run
	mWakerNs = "waker_ns"
	mElapsed = "elapsed_ns" // a hash round's length
)

// SummaryKeys are every summary key a wake configuration may have.
var SummaryKeys = []string{MWakerMean, MWakerSEM, MWakerMedian, MWakerP99, MPerThread, MWoken, MCalls, MCallMedian, MCallP99,
	MOpsPerSec, MOpsSEM, MOpsTotal, MNsPerOp, MUnexpected, MItemsPerSec, MNsPerItem, MCswPerItem, MWaitPerItem}

// Run runs parkbench wake: perf bench futex's method for the waker's side
// of a wake, per implementation. See doc.go for the method.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

func (p *wakePlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, cfgs := p.o, p.cfgs
	exp := &results.Experiment{Name: "wake", Metrics: Metrics, Options: o.asMap(p.impls, p.benches), Warnings: p.warnings, Notes: p.notes}
	exp.Notes = append(exp.Notes,
		"method: perf bench futex (tools/perf/bench/futex-wake.c, futex-wake-parallel.c, futex-requeue.c, futex-hash.c): N waiters pinned round-robin, fresh each run, seen asleep; the waker (unpinned) sleeps --settle, then its wake or requeue calls are timed; the figures are over runs",
		"statistic: waker_mean_ns and waker_sem_pct are perf's \"in %.4f ms (+-%.2f%%)\": the mean and the standard error of the mean as % of the mean (not a standard deviation); median and p99 are over runs (nearest rank); call_* over every call of every run",
		"clock: CLOCK_MONOTONIC in ns (perf: gettimeofday in µs, keeping tv_usec only); the Go waker reads it once per call (about 20 ns each) to time each call")
	if b := lot.CurrentBackend(); b.Name != "" {
		exp.Notes = append(exp.Notes, "lot parks through the "+b.Name+" thread parker")
	}
	if mode, slots := machine.FutexHash(); mode != "" {
		exp.Notes = append(exp.Notes, fmt.Sprintf("futex hash: %s (%d slots when the run started): the hash bench measures that table", mode, slots))
	}
	if roundRobin(1) == nil {
		exp.Notes = append(exp.Notes, "the CPU affinity cannot be read on "+runtime.GOOS+": every thread runs unpinned (perf pins the waiters round-robin)")
	}

	var tally runenv.Tally
	// Progress counts rounds: each configuration's rounds run round-robin
	// with its group's, so a label per configuration would only show the
	// last of each group.
	steps, step := 0, 0
	for _, c := range cfgs {
		steps += o.rounds(c.bench)
	}
	for start := 0; start < len(cfgs); {
		if driver.Interrupted(ctx) { // before the group's probe
			return nil, ctx.Err()
		}
		end := start
		participants := 0
		for end < len(cfgs) && cfgs[end].group == cfgs[start].group {
			participants = max(participants, cfgs[end].n+cfgs[end].m+1)
			end++
		}
		group := cfgs[start:end]
		records := make([]*results.Config, len(group))
		for k, c := range group {
			records[k] = newConfig(c, o)
		}
		env := runenv.Enter(participants)
		pr := probe.Measure(probe.DefaultCPUs())
		fg := probe.StartForeign()
		report := func(c cfgSpec, r int) {
			progress.Report(step, steps, fmt.Sprintf("%s (round %d/%d)", c.key(o), r+1, o.rounds(c.bench)))
			step++
		}
		var err error
		switch group[0].bench {
		case BenchHash:
			err = runHashGroup(ctx, group, o, records, report)
		case BenchCondvar:
			err = runPCGroup(ctx, group, o, records, report)
		default:
			err = runWakerGroup(ctx, group, o, records, report)
		}
		foreign := fg.Stop()
		grt := tally.End(env)
		if err != nil {
			return nil, err
		}
		for _, cfg := range records {
			cfg.Probe = pr
			driver.RecordForeignLoad(cfg, foreign)
			cfg.Params["gomaxprocs"] = strconv.Itoa(grt.GOMAXPROCS)
			exp.Configs = append(exp.Configs, cfg)
		}
		start = end
	}
	progress.Report(steps, steps, "")
	exp.Runtime = tally.Runtime("syscall")
	exp.Claims = Claims(exp.Configs, runtime.NumCPU())
	return exp, nil
}

// newConfig is a configuration's record before its runs.
func newConfig(c cfgSpec, o Options) *results.Config {
	cfg := &results.Config{
		Key:  c.key(o),
		Impl: c.im.name,
		Kind: c.im.kind,
		Params: map[string]string{
			"bench": c.bench,
			"n":     strconv.Itoa(c.n),
			"pid":   strconv.Itoa(os.Getpid()),
		},
	}
	switch c.bench {
	case BenchCondvar:
		cfg.Placement = driver.Unpinned
		return cfg
	case BenchParallel:
		cfg.Params["wakers"] = strconv.Itoa(c.m)
		cfg.Params["per_call"] = strconv.Itoa(c.n / c.m)
	case BenchWake, BenchRequeue:
		cfg.Params["per_call"] = kName(c.k)
	}
	if c.bench != BenchHash {
		cfg.Params["settle"] = o.Settle.String()
	}
	cfg.Placement = "round-robin"
	if roundRobin(1) == nil {
		cfg.Placement = driver.Unpinned
	}
	return cfg
}

// asMap is the options' echo (their opt tags: a count of 0 reads "all",
// as kName) with the implementations and benches planned.
func (o Options) asMap(impls []implSpec, benches []string) map[string]string {
	var names []string
	for _, im := range impls {
		names = append(names, im.name)
	}
	m := driver.Echo(o)
	m["impl"] = strings.Join(names, ",")
	m["bench"] = strings.Join(benches, ",")
	return m
}
