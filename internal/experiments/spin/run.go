package spin

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet; Run plans o and measures it.
var Plan, Run = driver.Planned(plan)

// Calibration: each library's spin phase is timed alone this many times
// (after calibWarmup), on the first placement's waiter thread.
const (
	calibWarmup = 20
	calibN      = 200
)

// configs gathers the rounds of each configuration, in first-seen order.
type configs struct {
	byKey map[string]*results.Config
	order []*results.Config
}

func (cs *configs) add(key, impl, kind, placement string, params map[string]string, rd results.Round) {
	c, ok := cs.byKey[key]
	if !ok {
		c = &results.Config{Key: key, Impl: impl, Kind: kind, Placement: placement, Params: params}
		cs.byKey[key] = c
		cs.order = append(cs.order, c)
	}
	c.Rounds = append(c.Rounds, rd)
}

// Run measures every placement in turn. Per placement: the waiter and the
// waker start (pinned), the libraries' spin phases are timed alone (the
// first placement only), then each round measures the park+wake ping-pong
// (the round's competitive budget) and then every row at every gap.
func (p *spinPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o := p.o
	exp := &results.Experiment{Name: "spin", Metrics: Metrics, Options: o.echo(p.rows), Warnings: slices.Clone(p.warnings)}
	env := runenv.Enter(2)
	defer env.Restore()
	cpus, err := osthread.Affinity()
	if err != nil || len(cpus) == 0 {
		return nil, fmt.Errorf("spin: reading this process's CPUs: %v", err)
	}
	cs := &configs{byKey: map[string]*results.Config{}}
	perRound := 1 + len(o.Gaps)*len(p.rows)
	total := len(p.placements) * o.Rounds * perRound
	done := 0
	var budgets map[string]float64
	var spins int
	for pi, pl := range p.placements {
		if driver.Interrupted(ctx) {
			return nil, ctx.Err()
		}
		pin := [2]int{cpus[0], cpus[0]}
		if pl == CrossCore {
			pin[1] = cpus[1]
		}
		pr, err := startPair(pin, pl == Oversubscribed)
		if err != nil {
			return nil, fmt.Errorf("spin %s: %w", pl, err)
		}
		if pi == 0 {
			progress.Report(done, total, "timing the libraries' spin phases")
			if budgets, spins, err = p.calibrate(ctx, pr, cpus); err != nil {
				pr.stop()
				return nil, err
			}
			exp.Notes = append(exp.Notes, calibrationNote(budgets, spins)...)
		}
		pm := probe.Measure(probe.DefaultCPUs())
		fg := probe.StartForeign()
		for r := 0; r < o.Rounds; r++ {
			progress.Report(done, total, fmt.Sprintf("%s/%s round %d", RowPingPong, pl, r+1))
			ping, err := p.pingPong(ctx, pr, pl)
			if err != nil {
				pr.stop()
				return nil, err
			}
			done++
			competitive := time.Duration(ping.metrics[MCost])
			cs.add(RowPingPong+"/"+pl, RowPingPong, KindCost, pl, map[string]string{"placement": pl}, ping.round())
			for _, gap := range o.Gaps {
				for _, rw := range p.rows {
					key := configKey(rw, pl, gap)
					progress.Report(done, total, fmt.Sprintf("%s round %d", key, r+1))
					rr, err := p.measure(ctx, pr, rw, pl, pin, gap, competitive)
					if err != nil {
						pr.stop()
						return nil, err
					}
					done++
					switch {
					case rw.name == RowCompetitive:
						rr.metrics[MBudget] = float64(competitive)
					case rw.name == RowFixed && rw.budget != Unbounded:
						rr.metrics[MBudget] = float64(rw.budget)
					case budgets[rw.name] > 0:
						rr.metrics[MBudget] = budgets[rw.name]
					}
					cs.add(key, rw.name, rw.kind, pl, rowParams(rw, pl, gap), rr.round())
				}
			}
		}
		foreign := fg.Stop()
		pr.stop()
		for _, c := range cs.order {
			if c.Placement == pl {
				c.Probe = pm
				driver.RecordForeignLoad(c, foreign)
			}
		}
	}
	progress.Report(total, total, "")
	for _, c := range cs.order {
		c.Summary = driver.MedianOfRounds(roundMetrics(c))
	}
	exp.Configs = cs.order
	exp.Runtime = env.Runtime()
	exp.Runtime.SyscallMode = "syscall"
	exp.Claims = Claims(exp.Configs)
	exp.Notes = append(exp.Notes, Answers(exp.Configs)...)
	exp.Notes = append(exp.Notes, method)
	return exp, nil
}

// method is the note that says how each figure is taken.
const method = "latency = the waker's clock right before its signal (exchange, or unlock) -> the waiter's right after its wait; " +
	"cpu/wait = the waiter's CLOCK_THREAD_CPUTIME_ID over the wait (user + kernel), less the clocks' own cost; spun = share of waits " +
	"with no voluntary switch (never slept); late = the wait's start + gap -> it resumed; budget = a fixed row's, the round's park + wake " +
	"cost (competitive), a library's spin phase timed alone (median); cost = latency + cpu/wait (medians). The rows park on a futex word " +
	"of their own (word.go), not through a parker: the runtime line's keep-alive is the platform parker's, not theirs"

func roundMetrics(c *results.Config) []map[string]float64 {
	out := make([]map[string]float64, len(c.Rounds))
	for i, r := range c.Rounds {
		out[i] = r.Metrics
	}
	return out
}

func configKey(rw row, placement string, gap time.Duration) string {
	if rw.name == RowFixed {
		return fmt.Sprintf("%s/%s/gap=%v/budget=%s", RowFixed, placement, gap, BudgetLabel(rw.budget))
	}
	return fmt.Sprintf("%s/%s/gap=%v", rw.name, placement, gap)
}

func rowParams(rw row, placement string, gap time.Duration) map[string]string {
	m := map[string]string{"placement": placement, "gap": gap.String(), "gap_ns": fmt.Sprint(int64(gap)), "folklore": rw.folklore}
	if rw.name == RowFixed {
		m["budget"] = BudgetLabel(rw.budget)
		delete(m, "folklore")
	}
	return m
}

// roundResult is one round of one configuration.
type roundResult struct {
	metrics map[string]float64
	hist    string
}

func (r roundResult) round() results.Round {
	return results.Round{Metrics: r.metrics, Histogram: r.hist}
}

// summarize is one round's figures from its waits.
func summarize(ss []sample, stale int64) (roundResult, error) {
	h := driver.NewHist()
	lat := make([]float64, len(ss))
	late := make([]float64, len(ss))
	cpu := make([]float64, len(ss))
	var spun, csw, cpuSum float64
	for i, s := range ss {
		driver.RecordAll(h, s.lat)
		lat[i], late[i], cpu[i] = float64(s.lat), float64(s.late), float64(s.cpu)
		cpuSum += float64(s.cpu)
		if !s.slept {
			spun++
		}
		csw += float64(s.csw)
	}
	m := map[string]float64{}
	driver.HistMetrics(h, m)
	n := float64(len(ss))
	m[MCPU] = stats.Median(cpu)
	m[MCPUMean] = cpuSum / n
	m[MLate] = stats.Median(late)
	m[MSpun] = spun / n
	m[MCsw] = csw / n
	m[MCost] = m[results.MMedian] + m[MCPU]
	m[MLateCost] = max(m[MLate], 0) + m[MCPU]
	m[MStale] = float64(stale)
	enc, err := results.EncodeHist(h)
	if err != nil {
		return roundResult{}, err
	}
	return roundResult{metrics: m, hist: enc}, nil
}

// pingPong is one round's park+wake ping-pong (pair.go pingA/pingB). Its
// cost, the round's competitive budget, is taken over the waits that
// slept (a wait whose reply came before it parked costs no park + wake;
// on one CPU about half do), when at least a tenth did.
func (p *spinPlan) pingPong(ctx context.Context, pr *pair, placement string) (roundResult, error) {
	j := &job{kind: jobPing, r: row{name: RowPingPong}, warmup: min(p.o.PingPong/10, 50), n: p.o.PingPong}
	j.out = make([]sample, j.n)
	if err := pr.run(ctx, j, placement); err != nil {
		return roundResult{}, err
	}
	rr, err := summarize(j.out, j.spurious)
	if err != nil {
		return rr, err
	}
	var lat, cpu []float64
	for _, s := range j.out {
		if s.slept {
			lat, cpu = append(lat, float64(s.lat)), append(cpu, float64(s.cpu))
		}
	}
	if len(lat) >= max(len(j.out)/10, 1) {
		rr.metrics[MCost] = stats.Median(lat) + stats.Median(cpu)
		rr.metrics[MSleptLat], rr.metrics[MSleptCPU] = stats.Median(lat), stats.Median(cpu)
	}
	return rr, nil
}

// measure is one round of one row at one gap.
func (p *spinPlan) measure(ctx context.Context, pr *pair, rw row, placement string, pin [2]int, gap, competitive time.Duration) (roundResult, error) {
	if rw.proto == protoC {
		return p.measureC(ctx, rw, placement, pin, gap)
	}
	j := &job{kind: jobWait, r: rw, gap: int64(gap), warmup: p.o.Warmup, n: p.o.Waits, competitive: competitive}
	j.out = make([]sample, j.n)
	if err := pr.run(ctx, j, placement); err != nil {
		return roundResult{}, err
	}
	return summarize(j.out, j.spurious)
}

// measureC is one round of glibc's adaptive mutex on C threads, under the
// same watchdog as the Go rows (pair.run).
func (p *spinPlan) measureC(ctx context.Context, rw row, placement string, pin [2]int, gap time.Duration) (roundResult, error) {
	run, err := cref.StartSpin(cref.SpinConfig{WaiterCPU: pin[0], WakerCPU: pin[1], Sleepy: placement == Oversubscribed,
		GapNs: int64(gap), Warmup: p.o.Warmup, N: p.o.Waits})
	if err != nil {
		return roundResult{}, err
	}
	var wd watchdog
	var failure error
	for !run.Join(20 * time.Millisecond) {
		switch verdict := wd.look(run.Progress(), run.Signalled(), time.Now()); {
		case ctx.Err() != nil:
			failure = ctx.Err()
		case verdict == lost:
			failure = &LostWakeupError{Row: rw.name, Placement: placement, Gap: gap, Wait: wd.prog + 1, Period: WatchdogPeriod}
		case verdict == stalled:
			failure = &StallError{Row: rw.name, Placement: placement, Gap: gap, Wait: wd.prog + 1}
		default:
			continue
		}
		run.Abort()
		if run.Join(time.Second) {
			run.Free()
		}
		return roundResult{}, failure
	}
	defer run.Free()
	if err := run.PinError(); err != nil {
		return roundResult{}, err
	}
	cs := run.Samples()
	ss := make([]sample, len(cs))
	for i, c := range cs {
		ss[i] = sample{lat: c.Lat, late: c.Late, cpu: c.CPU, slept: c.Slept, csw: c.Csw}
	}
	rr, err := summarize(ss, 0)
	if err != nil {
		return rr, err
	}
	if s := run.Spins(); s >= 0 {
		rr.metrics[MAdaptiveSpins] = float64(s)
	}
	return rr, nil
}

// calibrate times each library row's spin phase alone (the budget it
// spends before it parks): the Go ports on the pair's waiter thread, on a
// word nobody signals; glibc's in C, the waker watching the lock word
// turn contended (it needs a second CPU to watch from). It returns each
// row's median (ns) and glibc's __spins after its calibration.
func (p *spinPlan) calibrate(ctx context.Context, pr *pair, cpus []int) (map[string]float64, int, error) {
	out := map[string]float64{}
	spins := -1
	for _, rw := range p.rows {
		switch {
		case rw.kind != KindPort && rw.proto != protoC:
			continue
		case driver.Interrupted(ctx):
			// Before the C calibration, which does not see ctx.
			return nil, -1, ctx.Err()
		case rw.proto == protoC:
			if len(cpus) < 2 {
				continue
			}
			ns, s, err := cref.SpinCalibrate(cpus[0], cpus[1], calibWarmup, calibN, WatchdogPeriod)
			if err != nil {
				return nil, -1, err
			}
			out[rw.name], spins = medianInt(ns), s
		default:
			j := &job{kind: jobCalib, r: rw, warmup: calibWarmup, n: calibN, calib: make([]int64, calibN)}
			if err := pr.run(ctx, j, "calibration"); err != nil {
				return nil, -1, err
			}
			out[rw.name] = medianInt(j.calib)
		}
	}
	return out, spins, nil
}

func medianInt(v []int64) float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return stats.Median(f)
}

// calibrationNote says what each library's spin phase took alone.
func calibrationNote(b map[string]float64, spins int) []string {
	if len(b) == 0 {
		return nil
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(b)) {
		s := fmt.Sprintf("%s %.2f µs", name, b[name]/1e3)
		if name == RowGlibc && spins >= 0 {
			s += fmt.Sprintf(" (__spins %d after %d parks)", spins, calibWarmup+calibN)
		}
		parts = append(parts, s)
	}
	return []string{"the libraries' spin phases timed alone here (median of " + fmt.Sprint(calibN) + ", the CPU to themselves): " + strings.Join(parts, ", ")}
}
