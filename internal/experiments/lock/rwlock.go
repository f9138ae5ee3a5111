package lock

// parkbench rwlock: parking_lot's benchmark/src/bin/rwlock.rs
// (run_benchmark). Writers threads loop { write-lock; work-in on the shared
// value; unlock; work-between } and Readers threads loop { read-lock;
// work-in reading the shared value; unlock; work-between } on one padded
// rwlock for Duration. rwlock.rs gives both classes the same work per
// critical section and between; so does --rwlock (--work-in and
// --work-between apply to readers and writers alike). Read and write
// throughput and fairness are reported per class.

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Summary keys of an rwlock configuration.
const (
	MReadMops     = "read_mops"             // readers' acquisitions per µs
	MWriteMops    = "write_mops"            // writers' acquisitions per µs
	MKhzReader    = "khz_per_reader_median" // sorted[n/2] over readers, kHz
	MKhzWriter    = "khz_per_writer_median"
	MJainReaders  = "jain_index_readers" // (Σx)² / (n Σx²) over readers' counts
	MJainWriters  = "jain_index_writers"
	MWriteWaitMax = "write_wait_max_ns" // longest sampled write-lock wait
	MWriterMin    = "writer_min_acquired"
	mReaderKhz    = "khz_reader_" // + reader index, %03d
	mWriterKhz    = "khz_writer_"
)

// RwSummaryKeys are the summary keys of every rwlock configuration.
var RwSummaryKeys = []string{MReadMops, MWriteMops, MKhzReader, MKhzWriter, MJainReaders, MJainWriters, MWriteWaitMax, MWriterMin, MCPUBusy}

// rwSpec is one timed rwlock run.
type rwSpec struct {
	readers, writers    int
	workIn, workBetween int // work-unit iterations
	duration            time.Duration
}

// rwRaw is what one rwlock run measured.
type rwRaw struct {
	readers, writers []int64
	wallNs, cpuNs    int64
	writeWaitMax     int64
}

type rwGroup struct {
	readers, writers    int
	workIn, workBetween time.Duration
}

func (o RwOptions) rwGroups() []rwGroup {
	var out []rwGroup
	for _, in := range driver.Distinct(o.WorkIn) {
		for _, bt := range driver.Distinct(o.WorkBetween) {
			for _, w := range driver.Distinct(o.Writers) {
				for _, r := range driver.Distinct(o.Readers) {
					if r+w > 0 {
						out = append(out, rwGroup{readers: r, writers: w, workIn: in, workBetween: bt})
					}
				}
			}
		}
	}
	return out
}

func rwKey(impl string, g rwGroup) string {
	return fmt.Sprintf("%s/in=%v/between=%v/w=%d/r=%d", impl, g.workIn, g.workBetween, g.writers, g.readers)
}

// PlanRw validates o (an *driver.OptionError for bad input) and returns
// the --rwlock run it describes.
func PlanRw(o RwOptions) (driver.Plan, error) { return driver.Prepared(planRw(o)) }

// RunRw is parkbench rwlock: every implementation on every group of
// the readers x writers x work sweep, repeats interleaved, as Run.
func RunRw(ctx context.Context, o RwOptions, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, PlanRw, progress)
}

func (p *rwPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, impls := p.o, p.Items
	cal := calibrate()
	groups := o.rwGroups()
	maxThreads := slices.Max(o.Readers) + slices.Max(o.Writers)
	env := runenv.Enter(maxThreads)
	defer env.Restore()

	exp := &results.Experiment{Name: "rwlock", Metrics: RwMetrics, Options: o.asMap(impls), Warnings: p.Warnings}
	exp.Notes = append(exp.Notes,
		fmt.Sprintf("method: parking_lot benchmark/src/bin/rwlock.rs: writers loop { write; work-in; unlock; work-between }, readers loop { read; work-in reading the value; unlock; work-between } on one lock for %v; the same work for both classes; summary = median over %d repeats", o.Duration, o.Repeats),
		fmt.Sprintf("write waits are sampled: 1 write acquisition in %d is timed; write_wait_max_ns is the longest sample", SampleEvery),
		"every run checks exclusion: writers count under the write lock (the count must equal their own), and a reader that sees a writer inside fails the run")

	err := sweep(ctx, exp, env, groups, impls, o.Repeats, progress, rwKey,
		func(im impl, g rwGroup, _ int) (*rwRaw, error) {
			sp := rwSpec{readers: g.readers, writers: g.writers, duration: o.Duration}
			unit := cal.goIn
			if im.c {
				unit = cal.c
			}
			sp.workIn, sp.workBetween = iters(g.workIn, unit), iters(g.workBetween, unit)
			return im.rw(ctx, sp)
		},
		func(im impl, g rwGroup, raws []*rwRaw) (*results.Config, error) { return rwConfig(im, g, raws), nil })
	if err != nil {
		return nil, err
	}
	exp.Claims = RwClaims(exp.Configs)
	return exp, nil
}

// asMap is the options' echo (their opt tags) with the implementations
// planned and the fixed sampling and pattern.
func (o RwOptions) asMap(impls []impl) map[string]string {
	m := driver.Echo(o)
	m["impl"] = implNames(impls)
	m["sample_every"] = strconv.Itoa(SampleEvery)
	m["pattern"] = "rwlock"
	return m
}

func rwConfig(im impl, g rwGroup, raws []*rwRaw) *results.Config {
	threads := "goroutines locked to their OS threads (osthread.Go)"
	if im.c {
		threads = "C threads (pthread_create), no Go runtime in the loop"
	}
	c := &results.Config{
		Key: rwKey(im.name, g), Impl: im.name, Kind: im.kind,
		Params: map[string]string{
			"readers":      strconv.Itoa(g.readers),
			"writers":      strconv.Itoa(g.writers),
			"work_in":      g.workIn.String(),
			"work_between": g.workBetween.String(),
			"thread_kind":  threads,
			"pattern":      "rwlock",
		},
	}
	if im.name == "lot" {
		c.Params["parker"] = lot.CurrentBackend().Name
	}
	for i, rw := range raws {
		if g.writers > 0 {
			if starved := slices.Index(rw.writers, 0); starved >= 0 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("repeat %d: writer %d never acquired the lock", i+1, starved))
			}
		}
		c.Rounds = append(c.Rounds, results.Round{Metrics: rwRoundMetrics(rw)})
	}
	c.Summary = summarize(c.Rounds, RwSummaryKeys)
	return c
}

// classMetrics is one class's throughput (Mops), median kHz per thread and
// Jain's index; all 0 for an empty class.
func classMetrics(counts []int64, secs float64, m map[string]float64, mops, khz, jain, per string) {
	if len(counts) == 0 || secs <= 0 {
		return
	}
	var sum, sumSq float64
	k := make([]float64, len(counts))
	for i, c := range counts {
		k[i] = float64(c) / secs / 1e3
		sum += float64(c)
		sumSq += float64(c) * float64(c)
		m[fmt.Sprintf("%s%03d", per, i)] = k[i]
	}
	slices.Sort(k)
	m[mops] = sum / secs / 1e6
	m[khz] = k[len(k)/2]
	m[jain] = 0
	if sumSq > 0 {
		m[jain] = sum * sum / (float64(len(counts)) * sumSq)
	}
}

func rwRoundMetrics(rw *rwRaw) map[string]float64 {
	m := map[string]float64{}
	secs := float64(rw.wallNs) / 1e9
	classMetrics(rw.readers, secs, m, MReadMops, MKhzReader, MJainReaders, mReaderKhz)
	classMetrics(rw.writers, secs, m, MWriteMops, MKhzWriter, MJainWriters, mWriterKhz)
	if len(rw.writers) > 0 {
		m[MWriterMin] = float64(slices.Min(rw.writers))
		m[MWriteWaitMax] = float64(rw.writeWaitMax)
	}
	if rw.cpuNs >= 0 && rw.wallNs > 0 {
		m[MCPUBusy] = float64(rw.cpuNs) / float64(rw.wallNs)
	}
	m[mWall] = float64(rw.wallNs)
	return m
}
