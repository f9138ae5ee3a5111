// Package resultstest builds realistic parkbench result files in code, for
// the tests of results, report, compare and plot and for the fixture files
// under internal/results/testdata. Figures are synthetic but shaped like
// real runs: log-normal wake latencies with a tail, per-round spread, a
// probe per configuration.
package resultstest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Spec says what to build.
type Spec struct {
	Machine results.Machine
	Started time.Time
	// Scale multiplies every time (1: the baseline figures).
	Scale float64
	// Spread is the relative spread of round medians around the centre:
	// round i is centre * (1 + Spread*u_i), u_i in [-1, 1].
	Spread float64
	// Rounds per configuration (latency, selfwake, timeout; herd repeats
	// use Rounds+2). 0 means 3.
	Rounds int
	// Samples per latency round's histogram. 0 means 2000.
	Samples int
	// ProbeScale multiplies the probes (a faster machine has smaller ones).
	ProbeScale float64
	// Floors adds each experiment's same-run floor configurations
	// (latency c-futex, selfwake syscall, herd pthread); FloorScale
	// multiplies their times instead of Scale when it is not 0.
	Floors     bool
	FloorScale float64
	Seed       uint64
	// NoHistograms leaves the rounds' histograms out (their figures stay):
	// for the tests that never read one, since encoding them (zlib) is
	// most of a suite's making and the race detector makes it ~100x
	// slower.
	NoHistograms bool
}

func (s *Spec) defaults() {
	if s.Scale == 0 {
		s.Scale = 1
	}
	if s.Rounds == 0 {
		s.Rounds = 3
	}
	if s.Samples == 0 {
		s.Samples = 2000
	}
	if s.ProbeScale == 0 {
		s.ProbeScale = 1
	}
	if s.Machine.OS == "" {
		s.Machine = Machine("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", 2)
	}
	if s.Started.IsZero() {
		s.Started = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	}
}

// Machine returns a Linux amd64 machine with the given CPU model and cores.
func Machine(cpu string, cpus int) results.Machine {
	m := results.Machine{
		Hostname:       "ci-runner",
		OS:             "linux",
		Arch:           "amd64",
		Kernel:         "6.8.0-1017-azure",
		CPUModel:       cpu,
		LogicalCPUs:    cpus,
		Virtualization: "kvm",
		ClockSource:    "tsc",
		Governor:       "",
		GoVersion:      "go1.26.8",
		LoadAvg:        [3]float64{0.12, 0.30, 0.25},
	}
	m.Slug = results.Slug(m)
	return m
}

// File wraps experiments in a result file.
func File(s Spec, exps ...*results.Experiment) *results.File {
	s.defaults()
	return &results.File{
		Format:      results.Format,
		Version:     results.Version,
		Tool:        results.Tool{Version: "v0.1.0", Commit: "0123456789abcdef0123456789abcdef01234567", GoVersion: "go1.26.8"},
		Started:     s.Started,
		Finished:    s.Started.Add(42 * time.Second),
		Command:     []string{"parkbench", "run", "--quick"},
		Machine:     s.Machine,
		Experiments: exps,
	}
}

// Suite is what `parkbench run --quick` writes: latency, selfwake and herd.
func Suite(s Spec) *results.File {
	return File(s, Latency(s), Selfwake(s), Herd(s))
}

func runtimeSettings(procs int) results.Runtime {
	return results.Runtime{GOMAXPROCS: procs, GCPercent: -1, LockOSThread: true, SyscallMode: "syscall", CgoEnabled: true}
}

type gen struct {
	s   Spec
	rng *rand.Rand
}

func newGen(s Spec, salt uint64) *gen {
	s.defaults()
	return &gen{s: s, rng: rand.New(rand.NewPCG(s.Seed, salt))}
}

// roundCentres returns Rounds values spread around c.
func (g *gen) roundCentres(c float64, n int) []float64 {
	return g.centres(c, n, g.s.Scale)
}

func (g *gen) centres(c float64, n int, scale float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		u := 2*g.rng.Float64() - 1
		out[i] = c * scale * (1 + g.s.Spread*u)
	}
	return out
}

// floorCentres is roundCentres for a floor configuration (Spec.FloorScale).
func (g *gen) floorCentres(c float64, n int, floor bool) []float64 {
	if floor && g.s.FloorScale != 0 {
		return g.centres(c, n, g.s.FloorScale)
	}
	return g.roundCentres(c, n)
}

// with appends the floor row to impls when Spec.Floors asks for it.
func with[T any](s Spec, impls []T, floor T) []T {
	if !s.Floors {
		return impls
	}
	return append(slices.Clone(impls), floor)
}

func (g *gen) probe() *results.Probe {
	return &results.Probe{
		SpinOneWayNs: math.Round(90 * g.s.ProbeScale * (1 + 0.02*(2*g.rng.Float64()-1))),
		SyscallNs:    math.Round(110 * g.s.ProbeScale * (1 + 0.02*(2*g.rng.Float64()-1))),
		CPUs:         [2]int{0, 1},
	}
}

// latencyRound records Samples log-normal values with median m and a tail
// reaching tail*m, and returns the round's metrics and histogram.
func (g *gen) latencyRound(m, tail float64) results.Round {
	h := hdrhistogram.New(1, 10_000_000_000, 3)
	for i := 0; i < g.s.Samples; i++ {
		v := m * math.Exp(0.25*g.rng.NormFloat64())
		if g.rng.Float64() < 0.015 {
			v = m * (1 + (tail-1)*g.rng.Float64())
		}
		h.RecordValue(int64(math.Max(1, v)))
	}
	enc := ""
	if !g.s.NoHistograms {
		var err error
		if enc, err = results.EncodeHist(h); err != nil {
			panic(err)
		}
	}
	return results.Round{
		Metrics: map[string]float64{
			results.MMin:     float64(h.Min()),
			results.MMedian:  float64(h.ValueAtQuantile(50)),
			results.MP99:     float64(h.ValueAtQuantile(99)),
			results.MP999:    float64(h.ValueAtQuantile(99.9)),
			results.MMax:     float64(h.Max()),
			results.MSamples: float64(h.TotalCount()),
		},
		Histogram: enc,
	}
}

// Summarize sets c.Summary to the median over rounds of each metric.
func Summarize(c *results.Config) {
	c.Summary = map[string]float64{}
	vals := map[string][]float64{}
	for _, r := range c.Rounds {
		for k, v := range r.Metrics {
			vals[k] = append(vals[k], v)
		}
	}
	for k, v := range vals {
		c.Summary[k] = stats.Median(v) // a key has a value in some round
	}
}

type latencyImpl struct {
	impl, kind string
	median     float64
}

// Latency impls, their kinds and median one-way wake latency in ns.
var latencyImpls = []latencyImpl{
	{"futex", "thread-parker", 48000},
	{"pthread", "thread-parker", 52000},
	{"std", "token-parker", 50000},
	{"channel", "goroutine", 30000},
}

// Latency builds an E12 latency experiment: 4 impls x 2 placements.
func Latency(s Spec) *results.Experiment {
	g := newGen(s, 1)
	e := &results.Experiment{
		Name:    "latency",
		Options: map[string]string{"rounds": strconv.Itoa(g.s.Rounds), "iters": "10000", "warmup": "1000", "placements": "cross-core,same-core"},
		Runtime: runtimeSettings(4),
	}
	for _, im := range with(g.s, latencyImpls, latencyImpl{"c-futex", "c-reference", 45000}) {
		for _, pl := range []string{"cross-core", "same-core"} {
			m := im.median
			if pl == "same-core" {
				m *= 0.6
			}
			c := &results.Config{Key: im.impl + "/" + pl, Impl: im.impl, Kind: im.kind, Placement: pl, Probe: g.probe(),
				Foreign: &results.Foreign{Fraction: 0.01, SameCPUFraction: -1}}
			for _, rc := range g.floorCentres(m, g.s.Rounds, im.kind == "c-reference") {
				r := g.latencyRound(rc, 3)
				r.Metrics[results.MNoSleep] = math.Round(5 * g.rng.Float64())
				r.Metrics[results.MCtxSwSelf] = 2
				r.Metrics[results.MCtxSwThread] = 2
				c.Rounds = append(c.Rounds, r)
			}
			Summarize(c)
			e.Configs = append(e.Configs, c)
		}
	}
	e.Claims = []results.Claim{{ID: "E12-1", Statement: "all sleeping implementations are within one order of magnitude", Verdict: results.Holds, Evidence: "medians 29-52 µs"}}
	e.Warnings = []string{"pthread: cgo call adds ~1 µs per wake"}
	return e
}

// Selfwake builds the E12 reverse check: ns per wake+wait pair.
func Selfwake(s Spec) *results.Experiment {
	g := newGen(s, 2)
	e := &results.Experiment{Name: "selfwake", Options: map[string]string{"pairs": "100", "rounds": strconv.Itoa(g.s.Rounds)}, Runtime: runtimeSettings(2)}
	type selfImpl struct {
		impl string
		ns   float64
	}
	for _, im := range with(g.s, []selfImpl{{"futex", 210}, {"pthread", 160}, {"std", 190}, {"channel", 95}}, selfImpl{"syscall", 100}) {
		c := &results.Config{Key: im.impl, Impl: im.impl, Kind: "thread-parker", Probe: g.probe()}
		for _, v := range g.floorCentres(im.ns, g.s.Rounds, im.impl == "syscall") {
			c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{results.MNsPerPair: math.Round(v*10) / 10, results.MNoSleep: 100}})
		}
		Summarize(c)
		e.Configs = append(e.Configs, c)
	}
	e.Claims = []results.Claim{{ID: "E12-2", Statement: "a self-wake returns at once", Verdict: results.Holds, Evidence: "every wait returned without sleeping"}}
	return e
}

// Herd builds E6: lot (requeue) and std (broadcast) for N = 1, 4, 16, 64.
func Herd(s Spec) *results.Experiment {
	g := newGen(s, 3)
	e := &results.Experiment{Name: "herd", Options: map[string]string{"n": "1,4,16,64", "repeats": strconv.Itoa(g.s.Rounds + 2), "hold": "20us", "notify": "locked"}, Runtime: runtimeSettings(66)}
	type herdImpl struct {
		impl        string
		first, csw  float64
		broadcast   bool
		totalFactor float64
	}
	for _, im := range with(g.s, []herdImpl{{"lot", 60000, 2, false, 1.05}, {"std", 95000, 3, true, 1.6}}, herdImpl{"pthread", 50000, 3, true, 1.5}) {
		for _, n := range []int{1, 4, 16, 64} {
			c := &results.Config{Key: fmt.Sprintf("%s/n=%d", im.impl, n), Impl: im.impl, Kind: "condvar", Params: map[string]string{"n": strconv.Itoa(n)}, Probe: g.probe()}
			firsts := g.floorCentres(im.first*(1+0.02*float64(n)), g.s.Rounds+2, im.impl == "pthread")
			for _, f := range firsts {
				total := f + float64(n)*20000*im.totalFactor*(1+0.05*g.rng.Float64())
				m := map[string]float64{
					results.MReturn:     float64(n),
					results.MFirstNs:    math.Round(f),
					results.MTotalNs:    math.Round(total),
					results.MCtxSwProc:  math.Round(im.csw * float64(n)),
					results.MCtxSwParts: math.Round(im.csw * float64(n)),
				}
				if !im.broadcast {
					m[results.MUnparked] = 1
					m[results.MRequeued] = float64(n - 1)
				} else {
					m[results.MUnparked] = float64(n)
					m[results.MRequeued] = 0
				}
				c.Rounds = append(c.Rounds, results.Round{Metrics: m})
			}
			Summarize(c)
			e.Configs = append(e.Configs, c)
		}
	}
	e.Claims = []results.Claim{
		{ID: "E6-1", Statement: "the return value is always N", Verdict: results.Holds, Evidence: "notify_all returned N in every repeat"},
		{ID: "E6-2", Statement: "lot context switches are about 2N", Verdict: results.Holds, Evidence: "2.0N"},
	}
	return e
}

// Timeout builds a timeout experiment: how late timed parks return.
func Timeout(s Spec) *results.Experiment {
	g := newGen(s, 4)
	e := &results.Experiment{Name: "timeout", Options: map[string]string{"timeout": "1ms", "rounds": strconv.Itoa(g.s.Rounds)}, Runtime: runtimeSettings(2)}
	for _, im := range []struct {
		impl string
		late float64
	}{{"futex", 55000}, {"pthread", 60000}, {"channel", 70000}} {
		c := &results.Config{Key: im.impl, Impl: im.impl, Kind: "thread-parker", Params: map[string]string{"timeout": "1ms"}, Probe: g.probe()}
		for _, rc := range g.roundCentres(im.late, g.s.Rounds) {
			r := g.latencyRound(rc, 2)
			r.Metrics[results.MOvershootNs] = r.Metrics[results.MMedian]
			c.Rounds = append(c.Rounds, r)
		}
		Summarize(c)
		e.Configs = append(e.Configs, c)
	}
	return e
}
