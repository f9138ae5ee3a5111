package lock

// parkbench lock --rwlock: parking_lot's benchmark/src/bin/rwlock.rs
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
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Summary keys of an rwlock configuration.
const (
	MReadMops      = "read_mops"             // readers' acquisitions per µs
	MWriteMops     = "write_mops"            // writers' acquisitions per µs
	MKhzReader     = "khz_per_reader_median" // sorted[n/2] over readers, kHz
	MKhzWriter     = "khz_per_writer_median"
	MJainReaders   = "jain_index_readers" // (Σx)² / (n Σx²) over readers' counts
	MJainWriters   = "jain_index_writers"
	MWriteWaitMax  = "write_wait_max_ns" // longest sampled write-lock wait
	MWriterMin     = "writer_min_acquired"
	mReaderKhz     = "khz_reader_" // + reader index, %03d
	mWriterKhz     = "khz_writer_"
	ClaimRwWriters = "rwlock-writers-progress"
)

// RwSummaryKeys are the summary keys of every rwlock configuration.
var RwSummaryKeys = []string{MReadMops, MWriteMops, MKhzReader, MKhzWriter, MJainReaders, MJainWriters, MWriteWaitMax, MWriterMin, MCPUBusy}

// rwLocker is what the rwlock loop needs of a lock.
type rwLocker interface {
	locker
	RLock()
	RUnlock()
}

// pthreadRw is glibc's pthread_rwlock_t through cgo: one crossing per call.
type pthreadRw struct{ m *cref.PthreadRwLock }

func (m *pthreadRw) Lock()    { m.m.Lock() }
func (m *pthreadRw) Unlock()  { m.m.Unlock() }
func (m *pthreadRw) RLock()   { m.m.RLock() }
func (m *pthreadRw) RUnlock() { m.m.RUnlock() }

func pthreadRwInit(m *pthreadRw) (err error) {
	m.m, err = cref.NewPthreadRwLock()
	return err
}
func pthreadRwFree(m *pthreadRw) {
	if m.m != nil {
		m.m.Free()
	}
}

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

// rwImpl builds a Go rwlock implementation over type M.
func rwImpl[M any, PM interface {
	*M
	rwLocker
}](name, kind, summary string, init func(*M) error, free func(*M)) impl {
	return impl{
		name: name, kind: kind, summary: summary,
		rw: func(ctx context.Context, sp rwSpec) (*rwRaw, error) {
			return goRwRun[M, PM](ctx, sp, init, free)
		},
	}
}

// allRwImpls lists every --rwlock implementation in run order.
func allRwImpls() []impl {
	futexWhy := ""
	if !futexsync.Supported {
		futexWhy = "Rust std's futex rwlock needs Linux futexes"
	}
	cWhy := ""
	if err := cref.LockAvailable(); err != nil {
		cWhy = err.Error()
	}
	c := impl{name: "c-pthread", kind: KindC, c: true, why: cWhy,
		summary: "the whole loop in C threads on glibc pthread_rwlock_t (readers preferred, the default): no Go runtime (the floor)",
		rw:      func(ctx context.Context, sp rwSpec) (*rwRaw, error) { return cRwRun(ctx, sp) }}
	out := []impl{
		rwImpl[lot.RwLock]("lot", KindGo, "parking_lot's RwLock (internal/lot): task-fair, readers queue behind a parked writer", nil, nil),
		rwImpl[sync.RWMutex]("sync", KindGo, "Go's sync.RWMutex: a pending writer blocks new readers", nil, nil),
		rwImpl[futexsync.RwLock]("std-futex", KindGo, "Rust std's futex rwlock (internal/futexsync): writer-preferring", nil, nil),
		rwImpl[pthreadRw]("pthread", KindCgo, "glibc pthread_rwlock_t through cgo (readers preferred): one crossing per lock and per unlock", pthreadRwInit, pthreadRwFree),
		c,
	}
	for i := range out {
		switch out[i].name {
		case "std-futex":
			out[i].why = futexWhy
		case "pthread":
			out[i].why = cWhy
		}
	}
	return out
}

// RwImpls lists every --rwlock implementation for `parkbench list`.
func RwImpls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range allRwImpls() {
		out = append(out, driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.why})
	}
	return out
}

// RwImplNames lists the --rwlock implementation names.
func RwImplNames() []string {
	var out []string
	for _, im := range allRwImpls() {
		out = append(out, im.name)
	}
	return out
}

// validateRw checks the --rwlock options.
func (o Options) validateRw() error {
	for _, w := range []struct {
		field string
		v     []int
		lo    int
	}{{"Readers", o.Readers, 0}, {"Writers", o.Writers, 0}} {
		if len(w.v) == 0 {
			return driver.Bad(w.field, "give at least one thread count (0 for none)")
		}
		for _, n := range w.v {
			if err := driver.CheckCount(w.field, "thread count", n, w.lo, MaxThreads); err != nil {
				return err
			}
		}
	}
	if slices.Max(o.Readers)+slices.Max(o.Writers) == 0 {
		return driver.Bad("Writers", "give at least one reader or writer")
	}
	switch {
	case o.HoldSleep > 0:
		return driver.Bad("HoldSleep", "the rwlock benchmark has no hold-sleep pattern")
	case o.Skew:
		return driver.Bad("Skew", "the rwlock benchmark has no lockskew pattern")
	case len(o.LotParkers) > 0:
		return driver.Bad("LotParkers", "the rwlock benchmark runs lot over its current parker only")
	case !slices.Equal(o.Locks, []int{1}):
		return driver.Bad("Locks", "the rwlock benchmark has one lock")
	}
	return nil
}

type rwGroup struct {
	readers, writers    int
	workIn, workBetween time.Duration
}

func (o Options) rwGroups() []rwGroup {
	var out []rwGroup
	for _, in := range dedup(o.WorkIn) {
		for _, bt := range dedup(o.WorkBetween) {
			for _, w := range dedup(o.Writers) {
				for _, r := range dedup(o.Readers) {
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

// runRw is Run for --rwlock: every implementation on every group,
// repeats interleaved, as the mutex benchmark.
func runRw(ctx context.Context, o Options, impls []impl, warnings []string, progress driver.Progress) (*results.Experiment, error) {
	cal := calibrate()
	groups := o.rwGroups()
	maxThreads := slices.Max(o.Readers) + slices.Max(o.Writers)
	env := runenv.Enter(maxThreads)
	defer env.Restore()

	exp := &results.Experiment{Name: "rwlock", Metrics: RwMetrics, Options: o.asMap(impls), Warnings: warnings}
	delete(exp.Options, "threads")
	delete(exp.Options, "locks")
	exp.Options["pattern"] = "rwlock"
	exp.Options["readers"] = joinInts(o.Readers)
	exp.Options["writers"] = joinInts(o.Writers)
	exp.Notes = append(exp.Notes,
		fmt.Sprintf("method: parking_lot benchmark/src/bin/rwlock.rs: writers loop { write; work-in; unlock; work-between }, readers loop { read; work-in reading the value; unlock; work-between } on one lock for %v; the same work for both classes; summary = median over %d repeats", o.Duration, o.Repeats),
		fmt.Sprintf("write waits are sampled: 1 write acquisition in %d is timed; write_wait_max_ns is the longest sample", SampleEvery),
		"every run checks exclusion: writers count under the write lock (the count must equal their own), and a reader that sees a writer inside fails the run")

	total := len(groups) * o.Repeats * len(impls)
	done := 0
	var configs []*results.Config
	for _, g := range groups {
		raws := make([][]*rwRaw, len(impls))
		fg := probe.StartForeign()
		for r := 0; r < o.Repeats; r++ {
			for k, im := range impls {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				progress.Report(done, total, rwKey(im.name, g))
				sp := rwSpec{readers: g.readers, writers: g.writers, duration: o.Duration}
				unit := cal.goIn
				if im.c {
					unit = cal.c
				}
				sp.workIn, sp.workBetween = iters(g.workIn, unit), iters(g.workBetween, unit)
				rw, err := im.rw(ctx, sp)
				done++
				if err != nil {
					return nil, fmt.Errorf("%s: %w", rwKey(im.name, g), err)
				}
				raws[k] = append(raws[k], rw)
			}
		}
		foreign := fg.Stop()
		if foreign != nil && foreign.Fraction < 0 {
			foreign = nil
		}
		for k, im := range impls {
			c := rwConfig(im, g, raws[k])
			c.Foreign = foreign
			if foreign != nil && foreign.Fraction > 0.2 {
				c.Warnings = append(c.Warnings, fmt.Sprintf("other processes used %.0f%% of the CPU while this ran", 100*foreign.Fraction))
			}
			configs = append(configs, c)
		}
	}
	progress.Report(total, total, "")
	rt := env.Runtime()
	rt.SyscallMode = "syscall"
	exp.Runtime = rt
	exp.Configs = configs
	exp.Claims = RwClaims(configs)
	return exp, nil
}

func joinInts(v []int) string {
	var s []string
	for _, n := range v {
		s = append(s, strconv.Itoa(n))
	}
	return strings.Join(s, ",")
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
				t0 = nanotime()
			}
			PM(&l.mu).Lock()
			if sample {
				waitMax = max(waitMax, nanotime()-t0)
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
	wall, cpu, err := timedRun(ctx, nth, sp.duration, 30*time.Second, func(i int, stop *stopFlag) {
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

// RwClaims evaluates the rwlock claim: writers make progress under a
// steady read load, for every implementation: in every repeat of every
// configuration with writers and readers, write_mops > 0 and every
// writer thread acquired the lock at least once.
func RwClaims(configs []*results.Config) []results.Claim {
	cl := results.Claim{ID: ClaimRwWriters, Statement: "writers make progress under a steady read load, for every implementation (write_mops > 0 and every writer thread acquired the lock at least once, in every repeat)"}
	evaluated := 0
	var bad []string
	for _, c := range configs {
		if c.Params["pattern"] != "rwlock" || c.Params["writers"] == "0" || c.Params["readers"] == "0" {
			continue
		}
		evaluated++
		for i, r := range c.Rounds {
			wm, minAcq := r.Metrics[MWriteMops], r.Metrics[MWriterMin]
			if !(wm > 0) || !(minAcq >= 1) || math.IsNaN(minAcq) {
				bad = append(bad, fmt.Sprintf("%s repeat %d: write_mops %.4f, least writer %.0f acquisitions", c.Key, i+1, wm, minAcq))
			}
		}
	}
	switch {
	case evaluated == 0:
		cl.Verdict = results.NotEvaluated
		cl.Evidence = "needs a configuration with at least one reader and one writer"
	case len(bad) > 0:
		cl.Verdict = results.DoesNotHold
		cl.Evidence = strings.Join(bad, "; ")
	default:
		cl.Verdict = results.Holds
		cl.Evidence = fmt.Sprintf("%d of %d configurations: every writer acquired the lock in every repeat", evaluated, evaluated)
	}
	return []results.Claim{cl}
}
