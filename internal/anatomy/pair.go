package anatomy

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ktrace"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// --anatomy (docs/md): every measured round is paired with a traced
// one, in alternating order (traced first on even rounds), so the probe
// effect (traced median against untraced) is measured under the same mix
// of host states. The untraced rounds are the configuration's figures, as
// without --anatomy; each carries the anatomy of its traced twin, and the
// summary carries the anatomy of every traced wake pooled. The rings are
// read between rounds only: no reader runs beside the measured threads.

// Memory (docs/md, "Memory"): a traced round's records are joined
// and folded into pools (Pool: the figures of each wake, not its
// records) right after the round, the rings are closed, and the run's GC
// (off for the whole run: runenv) collects before the next round what the
// join dropped. What stays from one configuration to the next is its
// figures; the peak is one round's records, its index and the rings.

// PairTrace is one configuration's tracing state.
type PairTrace struct {
	tids [2]int32
	cpus []int
	n    int
	// events and wakes are the current traced round's, their room kept
	// from round to round and dropped at the configuration's end.
	events []ktrace.Event
	wakes  []Wake
	// round is the current traced round's wakes, pooled every traced
	// wake of the configuration.
	round, pooled Pool
	lost          uint64
	full          int       // rings found full when read (ktrace.Session.Full)
	traced        []float64 // per traced round: its median
	notes         []string  // the sessions'
	recorder      string    // the sessions' recorder (ktrace.Session.Recorder)
	dumped        bool
	// sess is the open tracepoints and rings: from the configuration's
	// start to its end, or (perRound) from right before each traced round
	// to the reading of its rings.
	sess     *ktrace.Session
	perRound bool
	// collect frees what a round dropped (runenv.Env.Collect).
	collect func()
}

// maxProbeEffect: a configuration whose traced rounds' median exceeds the
// untraced rounds' by more than this is warned about, with its figure.
const maxProbeEffect = 0.10

// ringBytes sizes a CPU's perf ring for a round of n round trips: about
// 1 KiB of records per wake on each side's CPU (measured: ~6 records a
// round trip per CPU, 56 to 104 bytes each). bpfRingBytes sizes the eBPF
// recorder's rings together: 1 KiB a round trip (about 12 records of 40
// bytes per round trip on both CPUs, twice over). Every record of a round must
// fit: the rings are read between rounds only.
func ringBytes(n int) int    { return min(max(2*n*1024, 1<<20), 256<<20) }
func bpfRingBytes(n int) int { return min(max(n*1024, 1<<20), 256<<20) }

// joinKinds are the events the join reads (internal/anatomy: Index, Join),
// and only those: every record is written by the CPU that hit the
// tracepoint, inside the measured wake. The syscall tracepoints
// (sys_enter/exit_futex) are the costly ones: enabling any of them sends
// every thread's every syscall through the kernel's slow syscall path.
var joinKinds = []ktrace.Kind{ktrace.Waking, ktrace.Switch, ktrace.CPUIdle}

// NewPairTrace checks a configuration's participants (tids; cpus their CPUs,
// -1 unpinned; n round trips a round, rounds rounds) can be traced; the
// tracepoints are opened for each traced round (Round).
//
// perRound opens them for each traced round and closes them after it (under
// --interleave, where every configuration is started at once: one
// configuration's rings at a time); else they stay open from now to the
// configuration's end, which spares each round the ~0.1 s an eBPF recorder
// takes to load its programs.
func NewPairTrace(tids [2]int32, pinned [2]int, n, rounds int, collect func(), perRound bool) (*PairTrace, error) {
	if tids[0] <= 0 || tids[1] <= 0 {
		return nil, fmt.Errorf("--anatomy: the participants' thread ids are unknown (%v)", tids)
	}
	var cpus []int
	if pinned[0] >= 0 && pinned[1] >= 0 {
		cpus = []int{pinned[0]}
		if pinned[1] != pinned[0] {
			cpus = append(cpus, pinned[1])
		}
	}
	if collect == nil {
		collect = func() {}
	}
	// The room for a round's wakes and (a first guess, 8 a round trip)
	// its records, and the pools' for every traced wake, once: no
	// doubling garbage.
	a := &PairTrace{tids: tids, cpus: cpus, n: n, collect: collect, perRound: perRound,
		wakes: make([]Wake, 0, 2*n), events: make([]ktrace.Event, 0, 8*n)}
	a.round.Grow(2 * n)
	a.pooled.Grow(2 * n * max(rounds, 1))
	// Open now: a configuration that cannot be traced fails before its
	// warm-up, not at its first traced round.
	if err := a.open(); err != nil {
		return nil, err
	}
	if perRound {
		a.Close()
	}
	return a, nil
}

// recorder is ktrace's recorder for the anatomy: eBPF where the kernel
// takes it, else perf; PARKBENCH_ANATOMY_RECORDER=perf|ebpf picks one (a
// developer's aid, docs/md: what eBPF buys, measured side by side).
func recorder() string {
	if r := os.Getenv("PARKBENCH_ANATOMY_RECORDER"); r != "" {
		return r
	}
	return ktrace.RecorderAuto
}

// open opens the tracepoints and their rings.
func (a *PairTrace) open() error {
	sess, err := ktrace.Open(ktrace.Options{TIDs: []int{int(a.tids[0]), int(a.tids[1])}, CPUs: a.cpus, BytesPerCPU: ringBytes(a.n), BPFBytes: bpfRingBytes(a.n), Kinds: joinKinds,
		Recorder: recorder()})
	if err != nil {
		if ktrace.IsUnavailable(err) {
			return driver.Bad("Anatomy", "%v", err)
		}
		return err
	}
	for _, n := range sess.Notes {
		if !slices.Contains(a.notes, n) {
			a.notes = append(a.notes, n)
		}
	}
	a.sess, a.recorder = sess, sess.Recorder
	return nil
}

// Close closes the tracepoints and unmaps the rings; safe on nil and twice.
func (a *PairTrace) Close() {
	if a != nil && a.sess != nil {
		a.sess.Close()
		a.sess = nil
	}
}

// capture turns a traced round's samples (each a wake's latency, ^v for a
// wait that did not sleep) and their ends (the woken side's clock) into
// wakes, before they are unmarked: side me's samples are the wakes of
// tid[me] by tid[1-me].
func (a *PairTrace) capture(samples, ends []int64) {
	a.wakes = a.wakes[:0]
	n := len(samples) / 2
	if len(ends) != len(samples) || n == 0 {
		return
	}
	for idx, v := range samples {
		me := idx / n
		noSleep := v < 0
		if noSleep {
			v = ^v
		}
		t1 := ends[idx]
		a.wakes = append(a.wakes, Wake{Waker: a.tids[1-me], Wakee: a.tids[me], T0: t1 - v, T1: t1, NoSleep: noSleep})
	}
}

// Round runs one round under the trace and joins it; it returns the
// round's anatomy figures. measure runs the round with the trace enabled
// (enable, then disable after it) and hands capture the round's samples
// before it unmarks them; it returns the round's figures, whose sleptKey
// is the median of the waits that slept. The round's records are dropped
// and collected before Round returns; its wakes' figures stay in the
// pools.
func (a *PairTrace) Round(measure func(enable, disable func() error, capture func(samples, ends []int64)) (map[string]float64, error), sleptKey string) (map[string]float64, error) {
	if a.sess == nil {
		if err := a.open(); err != nil {
			return nil, err
		}
	}
	if a.perRound {
		defer a.Close()
	}
	a.events = a.sess.Drain(a.events[:0]) // nothing from before this round
	lost0, full0 := a.sess.Lost(), a.sess.Full()
	m, err := measure(a.sess.Enable, a.sess.Disable, a.capture)
	if err != nil {
		return nil, err
	}
	a.events = a.sess.Drain(a.events[:0])
	lost := a.sess.Lost() - lost0
	a.full += a.sess.Full() - full0
	a.lost += lost
	if a.perRound {
		a.Close()
	}
	if path := os.Getenv("PARKBENCH_ANATOMY_DUMP"); path != "" && !a.dumped {
		// A developer's aid (docs/anatomy.md): the first traced round's
		// records and wakes, as the recorded tests read them.
		a.dumped = true
		if err := WriteRecording(path, Recording{TIDs: a.tids[:], Events: a.events, Wakes: a.wakes, Lost: lost}); err != nil {
			return nil, err
		}
	}
	v, ok := m[sleptKey]
	return a.fold(v, ok, lost), nil
}

// fold joins the traced round's wakes (a.wakes) with its records
// (a.events) into the round's pool and the configuration's, and returns
// the round's anatomy figures (slept: the median of its waits that slept,
// when ok; lost: the records the kernel dropped in it). The join's index
// is garbage when it returns, and collected.
func (a *PairTrace) fold(v float64, ok bool, lost uint64) map[string]float64 {
	a.join()
	out := map[string]float64{}
	a.round.Summary().Metrics(out, lost)
	if ok {
		a.traced = append(a.traced, v)
		out[MTracedMedian] = v
	}
	a.collect()
	return out
}

func (a *PairTrace) join() {
	tr := IndexInPlace(a.events, a.tids[:]) // the dump, if any, is written
	a.round.Reset()
	for _, w := range a.wakes {
		p := tr.Join(w)
		a.round.Add(p)
		a.pooled.Add(p)
		if !w.NoSleep {
			a.round.Measured(w.T1 - w.T0)
			a.pooled.Measured(w.T1 - w.T0)
		}
	}
}

// Finish puts the pooled anatomy into cfg's summary and drops the
// configuration's records and pools: the next configuration starts from
// the figures alone. pairs are the rounds' probe effects, each traced
// round's slept median over its untraced twin's, minus 1.
func (a *PairTrace) Finish(cfg *results.Config, pairs []float64) {
	s := a.pooled.Summary()
	for k := range cfg.Summary {
		if len(k) > 8 && k[:8] == "anatomy_" {
			delete(cfg.Summary, k) // medians of rounds: replaced by the pooled figures
		}
	}
	s.Metrics(cfg.Summary, a.lost)
	// The probe effect is paired, as the gate pairs its trials: the median
	// over rounds of each traced round against its untraced twin, the two
	// run back to back. A drift between rounds moves both sides of a pair
	// and not the estimate; the ratio of the two sides' medians would take
	// them from different rounds (c-futex, quiet: rounds +6.2, +14.0,
	// +4.9%, their medians' ratio +12.8%). stats.Median is NaN for none,
	// which fails the test as 0 did: no probe effect without both sides.
	if tm := stats.Median(a.traced); tm > 0 {
		cfg.Summary[MTracedMedian] = tm
	}
	if pe := stats.Median(pairs); pe > -1 {
		cfg.Summary[MProbeEffect] = pe
	}
	cfg.Params["anatomy_recorder"] = a.recorder
	if f := a.full; f > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("anatomy: a ring was full when read %d times (records after it dropped): the wakes after its last record are flagged lost", f))
	}
	if a.lost > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("anatomy: the kernel dropped %d trace records (rings full): the wakes around them are flagged, not decomposed", a.lost))
	}
	if f := s.Flagged(); f > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("anatomy: %d of %d traced wakes not decomposed: %s", f, a.pooled.Wakes(), s.FlagLine()))
	}
	for _, n := range a.notes {
		cfg.Warnings = append(cfg.Warnings, "anatomy: "+n)
	}
	a.Close()
	a.events, a.wakes, a.round, a.pooled = nil, nil, Pool{}, Pool{}
	a.collect()
}

// ProbeWarning is the run's warning naming every configuration whose probe
// effect exceeds maxProbeEffect, each with its figure and the medians of
// its traced and its untraced rounds (untraced: the summary's figure under
// that key) (nil when none does). One warning for the run, so that the
// output, which shows one example of warnings alike, shows every figure.
func ProbeWarning(cfgs []*results.Config, untraced string) []string {
	var over []string
	for _, c := range cfgs {
		pe, ok := c.Summary[MProbeEffect]
		if !ok || pe <= maxProbeEffect {
			continue
		}
		over = append(over, fmt.Sprintf("%s %+.0f%% (%.2f µs traced, %.2f untraced)", c.Key, 100*pe, c.Summary[MTracedMedian]/1000, c.Summary[untraced]/1000))
	}
	if len(over) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("anatomy: probe effect over %.0f%% (each traced round against its untraced twin, the median over rounds; the components describe wakes slower than the measured ones): %s",
		100*maxProbeEffect, strings.Join(over, ", "))}
}
