package timeout

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
	"github.com/parkbench/parkbench/internal/stats"
)

// Metric names of the timeout experiment (beside results.MMin and friends).
const (
	// MEarly counts returns before the deadline (a bug).
	MEarly = "early_returns"
	// MSpurious counts waits that reported being woken although nobody
	// woke them (ParkUntil true, TimedOut false, a token out of nowhere).
	MSpurious = "spurious_wakes"
	// MSlack is the timer slack the measuring thread had, read back with
	// PR_GET_TIMERSLACK (-1 where the OS has none).
	MSlack = "timerslack_ns"
	// MDeadline is the requested timeout.
	MDeadline = "deadline_ns"
)

// configSample is one configuration's raw outcome.
type configSample struct {
	late     []int64 // overshoot per measured wait, ns (negative: early)
	spurious int
	slack    int64 // read back, -1 unknown
	err      error
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

// Run measures every (impl, deadline, slack) configuration.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// run runs the plan, over the lot parker LotParker names if it names one.
func (p *timeoutPlan) Run(ctx context.Context, progress driver.Progress) (exp *results.Experiment, err error) {
	if p.o.LotParker == "" {
		return p.measure(ctx, progress)
	}
	err = driver.WithLotParker(p.lot, func() (err error) {
		exp, err = p.measure(ctx, progress)
		return err
	})
	return exp, err
}

func (p *timeoutPlan) measure(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	o, impls, warns := p.o, p.Items, p.Warnings
	exp := &results.Experiment{
		Name:     "timeout",
		Metrics:  Metrics,
		Options:  driver.Echo(o),
		Warnings: warns,
	}
	env := runenv.Enter(1)
	defer env.Restore()

	total := len(impls) * len(o.Deadlines) * len(o.Slacks)
	done := 0
	for _, ti := range impls {
		for _, d := range o.Deadlines {
			for _, slack := range o.Slacks {
				if driver.Interrupted(ctx) {
					return nil, ctx.Err()
				}
				key := configKey(ti.name, d, slack)
				progress.Report(done, total, key)
				s := measureTimeout(ctx, ti, d, slack, o.Warmup, o.Samples)
				if driver.Interrupted(ctx) {
					return nil, ctx.Err()
				}
				if s.err != nil {
					return nil, fmt.Errorf("timeout %s: %w", key, s.err)
				}
				c, err := buildConfig(ti, d, slack, s)
				if err != nil {
					return nil, err
				}
				exp.Configs = append(exp.Configs, c)
				done++
			}
		}
	}
	progress.Report(done, total, "")
	exp.Runtime = env.Runtime()
	exp.Runtime.SyscallMode = "syscall"
	exp.Claims = Claims(exp.Configs)
	exp.Notes = notesFor(exp.Configs)
	if w := coarseClockWarning(monoclock.Step(monoclock.GoClockNs)); w != "" {
		exp.Warnings = append(exp.Warnings, w)
	}
	return exp, nil
}

// coarseClockWarning: every deadline here is a time.Time, so overshoots are
// read on Go's monotonic clock. Where it advances in steps (Windows: the
// timer tick; under Wine about 4 ms), overshoots below one step are not
// resolved, and a single kernel wait timed by another clock (std's
// park_timeout: one WaitOnAddress of whole ms) can end before Go's clock
// has moved past the deadline: an "early" return by Go's clock only.
func coarseClockWarning(step time.Duration) string {
	if step <= time.Microsecond {
		return ""
	}
	return fmt.Sprintf("Go's monotonic clock here advances in steps of %v (smallest seen), so overshoots below that are not resolved; "+
		"a single timed kernel wait (std) may read as an early return on it", step)
}

func configKey(impl string, d, slack time.Duration) string {
	return fmt.Sprintf("%s/deadline=%v/slack=%s", impl, d, SlackLabel(slack))
}

// measureTimeout runs one configuration on a new locked OS thread, which is
// retired afterwards, so its timer slack never leaks.
func measureTimeout(ctx context.Context, ti mechanism, d, slack time.Duration, warmup, n int) configSample {
	res := make(chan configSample, 1)
	osthread.Go(func() {
		s := configSample{late: make([]int64, 0, n), slack: -1}
		defer func() {
			if p := recover(); p != nil {
				s.err = fmt.Errorf("panic: %v", p)
			}
			res <- s
		}()
		if slack != 0 {
			if err := setTimerSlack(slack); err != nil {
				s.err = err
				return
			}
		}
		s.slack = timerSlack()
		w := ti.newWaiter()
		defer w.close()
		for i := 0; i < warmup+n; i++ {
			if ctx.Err() != nil {
				return
			}
			deadline := time.Now().Add(d)
			woken := w.wait(deadline)
			late := time.Since(deadline)
			if i < warmup {
				continue
			}
			s.late = append(s.late, int64(late))
			if woken {
				s.spurious++
			}
		}
	})
	return <-res
}

// overshootStats are the order statistics of one configuration (exact,
// driver.NearestRank, from the raw samples).
type overshootStats struct {
	min, median, p99, max int64
	early                 int
}

func overshootStatsOf(late []int64) overshootStats {
	if len(late) == 0 {
		return overshootStats{}
	}
	s := slices.Clone(late)
	slices.Sort(s)
	rank := func(q float64) int64 { return int64(stats.NearestRank(s, q)) } // one of the samples: exact
	st := overshootStats{min: s[0], median: rank(0.5), p99: rank(0.99), max: s[len(s)-1]}
	for _, v := range s {
		if v < 0 {
			st.early++
		}
	}
	return st
}

// histHighest is the histogram's top value (ns); overshoots above it are
// clamped (10 s deadlines + a very late return still fit).
const histHighest = 100 * int64(time.Second)

func buildConfig(ti mechanism, d, slack time.Duration, s configSample) (*results.Config, error) {
	st := overshootStatsOf(s.late)
	h := hdrhistogram.New(1, histHighest, 3)
	// Early returns (< 1 ns late) are counted in MEarly; the histogram
	// holds [1 ns, histHighest], clamped.
	driver.RecordAll(h, s.late...)
	enc, err := results.EncodeHist(h)
	if err != nil {
		return nil, fmt.Errorf("timeout %s: %w", ti.name, err)
	}
	m := map[string]float64{
		results.MMin:         float64(st.min),
		results.MMedian:      float64(st.median),
		results.MP99:         float64(st.p99),
		results.MMax:         float64(st.max),
		results.MOvershootNs: float64(st.median),
		results.MSamples:     float64(len(s.late)),
		MEarly:               float64(st.early),
		MSpurious:            float64(s.spurious),
		MSlack:               float64(s.slack),
		MDeadline:            float64(d),
	}
	params := map[string]string{"deadline": d.String(), "slack": SlackLabel(slack)}
	if ti.kernelTimed {
		params["kernel_timed"] = "true"
	} else {
		params["kernel_timed"] = "false"
	}
	if ti.params != nil {
		for k, v := range ti.params() {
			params[k] = v
		}
	}
	c := &results.Config{
		Key:     configKey(ti.name, d, slack),
		Impl:    ti.name,
		Kind:    ti.kind,
		Params:  params,
		Rounds:  []results.Round{{Metrics: m, Histogram: string(enc)}},
		Summary: maps.Clone(m), // m is not nil: a copy, not an alias of round 0
	}
	if st.early > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d waits returned before the deadline (earliest %d ns early)", st.early, len(s.late), -st.min))
	}
	if s.spurious > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d waits reported a wake although nobody woke them", s.spurious, len(s.late)))
	}
	return c, nil
}

// notesFor puts the pthread clock modes side by side and says what the
// goroutine-level rows mean.
func notesFor(cfgs []*results.Config) []string {
	var notes []string
	modes := []string{parkers.NamePthread, parkers.NamePthreadWallclock, parkers.NamePthreadRelative}
	type k struct {
		d     string
		slack string
	}
	med := map[k]map[string]float64{}
	var order []k
	for _, c := range cfgs {
		if !slices.Contains(modes, c.Impl) {
			continue
		}
		key := k{c.Params["deadline"], c.Params["slack"]}
		if med[key] == nil {
			med[key] = map[string]float64{}
			order = append(order, key)
		}
		med[key][c.Impl] = c.Summary[results.MMedian]
	}
	var parts []string
	for _, key := range order {
		var vs []string
		for _, m := range modes {
			if v, ok := med[key][m]; ok {
				vs = append(vs, fmt.Sprintf("%.1f", v/1e3))
			} else {
				vs = append(vs, "-")
			}
		}
		parts = append(parts, fmt.Sprintf("%s/slack=%s %s", key.d, key.slack, strings.Join(vs, "/")))
	}
	if len(parts) > 0 {
		notes = append(notes, "pthread clock modes, median overshoot µs as pthread/pthread-wallclock/pthread-relative: "+strings.Join(parts, "; ")+
			". With the wall clock not stepped the three wait for the same time; pthread-wallclock's difference is what happens when it is: "+
			"its absolute CLOCK_REALTIME deadline (gettimeofday + remaining) moves with a clock step, so a step back by X lengthens the wait in the kernel by X, "+
			"a step forward ends it early and the monotonic re-check waits again (never early)")
	}
	var gor []string
	for _, c := range cfgs {
		if c.Kind != string(parkers.KindGoroutine) {
			continue
		}
		if d, err := time.ParseDuration(c.Params["deadline"]); err == nil && d < time.Millisecond {
			gor = append(gor, fmt.Sprintf("%s %.0f µs", c.Key, c.Summary[results.MMedian]/1e3))
		}
	}
	for _, c := range cfgs {
		if c.Kind == string(parkers.KindGoroutine) {
			n := "goroutine-level rows (chan, cond) wait on a Go runtime timer: the measuring thread sleeps in futex with no timeout (its M's note) and the wake comes from whichever M runs the timer, " +
				"so the measuring thread's timer slack does not apply to them. When no P is busy the timer is left to the netpoller, whose epoll_pwait timeout is in whole milliseconds " +
				"(a delay under 1 ms is rounded up to 1 ms), so a sub-millisecond Go timeout can return up to about 1 ms late"
			if len(gor) > 0 {
				if len(gor) > 6 {
					gor = gor[:6]
				}
				n += "; medians here: " + strings.Join(gor, ", ")
			}
			notes = append(notes, n)
			break
		}
	}
	return notes
}
