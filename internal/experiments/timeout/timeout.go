package timeout

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
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

// Options configures Run.
type Options struct {
	// Impls are the mechanisms to measure; empty or "all" means every one
	// available here (unavailable ones are skipped with a warning).
	Impls []string
	// Deadlines are the timeouts, each in (0, 10 s].
	Deadlines []time.Duration
	// Samples is the number of measured waits per deadline, in [1, 1e6].
	Samples int
	// Warmup waits per configuration, not recorded.
	Warmup int
	// Slacks are the timer slacks to run under; 0 means "default" (leave
	// the thread's slack as it is, and record it).
	Slacks []time.Duration
	// LotParker is the parker backend under the lot-* mechanisms ("":
	// the lot's current one, the platform default).
	LotParker string
}

// DefaultOptions is the full sweep.
func DefaultOptions() Options {
	return Options{
		Impls:     []string{"all"},
		Deadlines: []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond},
		Samples:   200,
		Warmup:    5,
		Slacks:    defaultSlacks(),
	}
}

// defaultSlacks is "default" and, where timer slack can be set (Linux
// prctl), 1ns: elsewhere 1ns is refused, and the default sweep must run.
func defaultSlacks() []time.Duration {
	if slackSupported {
		return []time.Duration{0, time.Nanosecond}
	}
	return []time.Duration{0}
}

// SlackSupported reports whether a per-thread timer slack can be set here.
func SlackSupported() bool { return slackSupported }

// QuickOptions is the sweep with 50 samples per deadline.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Samples = 50
	o.Warmup = 2
	return o
}

// Limits of the options.
const (
	MaxDeadline   = 10 * time.Second
	MaxSamples    = 1_000_000
	MaxTimerSlack = time.Second
)

// SlackLabel spells a slack option: "default" for 0, else a duration.
func SlackLabel(s time.Duration) string {
	if s == 0 {
		return "default"
	}
	return s.String()
}

// ParseSlack reads one --timerslack item: "default" or a positive duration
// up to MaxTimerSlack ("1ns", "50us").
func ParseSlack(s string) (time.Duration, error) {
	if s == "default" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid timer slack %q: want \"default\" or a duration such as 1ns or 50us", s)
	}
	if d <= 0 || d > MaxTimerSlack {
		return 0, fmt.Errorf("invalid timer slack %q: must be > 0 and at most %v (or \"default\")", s, MaxTimerSlack)
	}
	return d, nil
}

// Validate checks every option without measuring anything: counts,
// deadlines, slacks (a slack off Linux is refused), implementation names
// and the lot parker. Errors are *driver.OptionError naming the field.
func (o Options) Validate() error {
	if err := o.validateCounts(); err != nil {
		return err
	}
	if _, err := driver.LotParker("LotParker", o.LotParker); err != nil {
		return err
	}
	_, _, err := resolveMechanisms(o.Impls)
	return err
}

// validateCounts checks the options that need no knowledge of the machine.
func (o Options) validateCounts() error {
	if len(o.Deadlines) == 0 {
		return driver.Bad("Deadlines", "no deadlines given")
	}
	for _, d := range o.Deadlines {
		if d <= 0 || d > MaxDeadline {
			return driver.Bad("Deadlines", "invalid deadline %v: must be > 0 and at most %v", d, MaxDeadline)
		}
	}
	if o.Samples < 1 || o.Samples > MaxSamples {
		return driver.Bad("Samples", "invalid samples %d: must be between 1 and %d", o.Samples, MaxSamples)
	}
	if o.Warmup < 0 || o.Warmup > MaxSamples {
		return driver.Bad("Warmup", "invalid warmup %d: must be between 0 and %d", o.Warmup, MaxSamples)
	}
	if len(o.Slacks) == 0 {
		return driver.Bad("Slacks", "no timer slack given (use \"default\")")
	}
	for _, s := range o.Slacks {
		if s < 0 || s > MaxTimerSlack {
			return driver.Bad("Slacks", "invalid timer slack %v: must be > 0 and at most %v (or \"default\")", s, MaxTimerSlack)
		}
		if s != 0 && !slackSupported {
			return driver.Bad("Slacks", "timer slack %v: timer slack is Linux only (prctl PR_SET_TIMERSLACK); use \"default\" here", s)
		}
	}
	return nil
}

// timedWaiter is one mechanism's timed wait on the measuring thread. wait
// blocks until deadline (nobody wakes it) and reports whether the mechanism
// claimed it was woken instead of timing out.
type timedWaiter struct {
	wait  func(deadline time.Time) (woken bool)
	close func()
}

// mechanism is one measurable mechanism.
type mechanism struct {
	name string
	kind string // parkers.Kind, "lot" or "reference"
	// kernelTimed: the wait is a kernel timer of the measuring thread, so
	// its timer slack applies (false for spinning, yielding and
	// goroutine-level waits).
	kernelTimed bool
	why         func() error
	// params adds configuration facts (the lot's parker backend).
	params func() map[string]string
	// newWaiter runs on the measuring thread.
	newWaiter func() timedWaiter
	// summary is one line for `parkbench list`.
	summary string
}

// extraMechanisms are added by other files (lot, nanosleep).
var extraMechanisms []func() mechanism

// mechanisms returns every mechanism in list order: the parkers
// registry (minus the "default" alias), then the lot, then references.
func mechanisms() []mechanism {
	var out []mechanism
	for _, b := range parkers.All() {
		if b.Name == parkers.NameDefault {
			continue
		}
		if ti, ok := backendMechanism(b); ok {
			out = append(out, ti)
		}
	}
	for _, f := range extraMechanisms {
		out = append(out, f())
	}
	return out
}

func backendMechanism(b parkers.Backend) (mechanism, bool) {
	ti := mechanism{name: b.Name, kind: string(b.Kind), why: b.Unavailable, summary: b.Summary,
		kernelTimed: b.Sleeps && b.Kind != parkers.KindGoroutine}
	// Token parkers (std, crossbeam, chan, cond) also offer a ThreadParker
	// adapter; their own ParkDeadline is what is measured.
	switch {
	case b.NewToken != nil && b.Kind != parkers.KindThread:
		ti.newWaiter = func() timedWaiter {
			p := b.NewToken()
			return timedWaiter{wait: p.ParkDeadline, close: func() { closeIfCloser(p) }}
		}
	case b.NewThread != nil:
		ti.newWaiter = func() timedWaiter {
			p := b.NewThread()
			return timedWaiter{
				wait: func(d time.Time) bool {
					p.PreparePark()
					if p.ParkUntil(d) {
						return true
					}
					return !p.TimedOut()
				},
				close: func() { closeIfCloser(p) },
			}
		}
	default:
		return ti, false
	}
	return ti, true
}

// closeIfCloser frees a parker's resources now (pthread's C memory) if it can.
func closeIfCloser(p any) {
	if c, ok := p.(interface{ Close() }); ok {
		c.Close()
	}
}

// Impls describes every mechanism timeout accepts (besides the aliases
// "all" and "lot", the three lot-* ones), in list order.
func Impls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, ti := range mechanisms() {
		info := driver.ImplInfo{Name: ti.name, Kind: ti.kind, Summary: ti.summary}
		if ti.why != nil {
			if err := ti.why(); err != nil {
				info.Why = err.Error()
			}
		}
		out = append(out, info)
	}
	return out
}

// ImplNames lists every --impl name of the timeout experiment.
func ImplNames() []string {
	var names []string
	for _, ti := range mechanisms() {
		names = append(names, ti.name)
	}
	return names
}

// resolveMechanisms turns --impl into mechanisms, with warnings for the
// unavailable ones skipped under "all".
func resolveMechanisms(names []string) ([]mechanism, []string, error) {
	all := mechanisms()
	if len(names) == 0 || (len(names) == 1 && names[0] == "all") {
		var out []mechanism
		var warns []string
		for _, ti := range all {
			if ti.why != nil {
				if err := ti.why(); err != nil {
					warns = append(warns, fmt.Sprintf("%s skipped: %v", ti.name, err))
					continue
				}
			}
			out = append(out, ti)
		}
		return out, warns, nil
	}
	var out []mechanism
	var expanded []string
	for _, n := range names {
		if n == "lot" { // the three lot-* mechanisms, as latency's --impl lot
			for _, ti := range all {
				if ti.kind == "lot" {
					expanded = append(expanded, ti.name)
				}
			}
			continue
		}
		expanded = append(expanded, n)
	}
	for _, n := range expanded {
		if n == "all" {
			return nil, nil, driver.Bad("Impls", "all cannot be combined with other names")
		}
		if slices.ContainsFunc(out, func(t mechanism) bool { return t.name == n }) {
			continue
		}
		i := slices.IndexFunc(all, func(t mechanism) bool { return t.name == n })
		if i < 0 {
			return nil, nil, driver.Bad("Impls", "unknown impl %q; valid names: all, lot, %s", n, strings.Join(ImplNames(), ", "))
		}
		if all[i].why != nil {
			if err := all[i].why(); err != nil {
				return nil, nil, driver.Bad("Impls", "impl %q is not available here: %v", n, err)
			}
		}
		out = append(out, all[i])
	}
	return out, nil, nil
}

// configSample is one configuration's raw outcome.
type configSample struct {
	late     []int64 // overshoot per measured wait, ns (negative: early)
	spurious int
	slack    int64 // read back, -1 unknown
	err      error
}

// Run measures every (impl, deadline, slack) configuration.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.LotParker == "" {
		return run(ctx, o, progress)
	}
	// The lot's backend first: whether a lot-* wait is kernel-timed
	// depends on it.
	b, err := driver.LotParker("LotParker", o.LotParker)
	if err != nil {
		return nil, err
	}
	var exp *results.Experiment
	err = driver.WithLotParker(b, func() (err error) {
		exp, err = run(ctx, o, progress)
		return err
	})
	return exp, err
}

func run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	impls, warns, err := resolveMechanisms(o.Impls)
	if err != nil {
		return nil, err
	}
	exp := &results.Experiment{
		Name:    "timeout",
		Metrics: Metrics,
		Options: map[string]string{
			"impl":       strings.Join(o.Impls, ","),
			"deadlines":  joinDurations(o.Deadlines),
			"samples":    fmt.Sprint(o.Samples),
			"warmup":     fmt.Sprint(o.Warmup),
			"timerslack": joinSlacks(o.Slacks),
		},
		Warnings: warns,
	}
	if o.LotParker != "" {
		exp.Options["lot_parker"] = o.LotParker
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
// nearest rank, from the raw samples).
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
	rank := func(q float64) int64 {
		i := int(q*float64(len(s)) + 0.999999999)
		if i < 1 {
			i = 1
		}
		if i > len(s) {
			i = len(s)
		}
		return s[i-1]
	}
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
		Summary: copyMetrics(m),
	}
	if st.early > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d waits returned before the deadline (earliest %d ns early)", st.early, len(s.late), -st.min))
	}
	if s.spurious > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("%d of %d waits reported a wake although nobody woke them", s.spurious, len(s.late)))
	}
	return c, nil
}

func copyMetrics(m map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func joinDurations(ds []time.Duration) string {
	var s []string
	for _, d := range ds {
		s = append(s, d.String())
	}
	return strings.Join(s, ",")
}

func joinSlacks(ss []time.Duration) string {
	var s []string
	for _, d := range ss {
		s = append(s, SlackLabel(d))
	}
	return strings.Join(s, ",")
}

// Claim IDs of the timeout experiment.
const (
	ClaimNoEarlyReturn  = "timeout-never-early"
	ClaimSlackDominates = "timeout-slack-dominates"
)

// Thresholds of the slack claim.
const (
	// slackShortDeadline: deadlines up to this count as short, i.e.
	// commensurate with the 50 µs slack. Longer waits also pay the slack,
	// but on a VM their overshoot includes tens of µs of waking an idle
	// vCPU, which no slack setting removes.
	slackShortDeadline = 100 * time.Microsecond
	// slackSmall: a slack at most this counts as "1 ns slack".
	slackSmall = time.Microsecond
	// slackShare: the default slack must account for at least this share
	// of the default-slack median overshoot.
	slackShare = 0.5
	// slackPairsNeeded: share of (impl, deadline) pairs that must show it.
	slackPairsNeeded = 0.75
)

// Claims evaluates the experiment's claims from its configurations
// (pure: it reads only Params and Summary).
func Claims(cfgs []*results.Config) []results.Claim {
	return []results.Claim{claimNoEarly(cfgs), claimSlack(cfgs)}
}

func claimNoEarly(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimNoEarlyReturn, Statement: "no park-until returns before its deadline (min overshoot >= 0 in every configuration)"}
	if len(cfgs) == 0 {
		c.Verdict, c.Evidence = results.NotEvaluated, "no configurations measured"
		return c
	}
	var bad []string
	var samples, early float64
	minV, minKey := cfgs[0].Summary[results.MMin], cfgs[0].Key
	for _, cf := range cfgs {
		samples += cf.Summary[results.MSamples]
		e := cf.Summary[MEarly]
		if cf.Summary[results.MMin] < 0 && e == 0 {
			e = 1 // a negative minimum is at least one early return
		}
		early += e
		if e > 0 {
			bad = append(bad, fmt.Sprintf("%s: %.0f early, min %.0f ns", cf.Key, e, cf.Summary[results.MMin]))
		}
		if v := cf.Summary[results.MMin]; v < minV {
			minV, minKey = v, cf.Key
		}
	}
	if len(bad) == 0 {
		c.Verdict = results.Holds
		c.Evidence = fmt.Sprintf("0 early returns in %.0f waits over %d configurations; smallest overshoot %.0f ns (%s)", samples, len(cfgs), minV, minKey)
		return c
	}
	c.Verdict = results.DoesNotHold
	c.Evidence = fmt.Sprintf("%.0f early returns in %.0f waits: %s", early, samples, strings.Join(bad, "; "))
	return c
}

// slackPair is one (impl, deadline) measured under the default and a small
// slack.
type slackPair struct {
	impl               string
	deadline           time.Duration
	defMedian, smallMd float64
	defSlack           float64
}

func claimSlack(cfgs []*results.Config) results.Claim {
	c := results.Claim{ID: ClaimSlackDominates, Statement: fmt.Sprintf(
		"the default 50 µs timer slack dominates short deadlines' overshoot and 1 ns slack reduces it "+
			"(kernel-timed waits, deadlines <= %v: the default-slack median minus the small-slack median is at least %.0f%% of the default-slack median, in at least %.0f%% of pairs)",
		slackShortDeadline, slackShare*100, slackPairsNeeded*100)}
	type k struct {
		impl string
		d    time.Duration
	}
	def := map[k]*results.Config{}
	small := map[k]*results.Config{}
	var order []k
	var defSlackSeen float64 = -1
	for _, cf := range cfgs {
		if cf.Params["kernel_timed"] != "true" {
			continue
		}
		d, err := time.ParseDuration(cf.Params["deadline"])
		if err != nil || d > slackShortDeadline {
			continue
		}
		key := k{cf.Impl, d}
		switch sl := cf.Params["slack"]; {
		case sl == "default":
			if _, ok := def[key]; !ok {
				order = append(order, key)
			}
			def[key] = cf
			defSlackSeen = cf.Summary[MSlack]
		default:
			if v, err := time.ParseDuration(sl); err == nil && v <= slackSmall {
				small[key] = cf
			}
		}
	}
	var pairs []slackPair
	for _, key := range order {
		s, ok := small[key]
		if !ok {
			continue
		}
		d := def[key]
		pairs = append(pairs, slackPair{key.impl, key.d, d.Summary[results.MMedian], s.Summary[results.MMedian], d.Summary[MSlack]})
	}
	if len(pairs) == 0 {
		c.Verdict = results.NotEvaluated
		c.Evidence = fmt.Sprintf("needs kernel-timed waits with deadlines <= %v under both the default slack and a slack <= %v (--timerslack=default,1ns)", slackShortDeadline, slackSmall)
		return c
	}
	if defSlackSeen < float64(10*time.Microsecond) {
		c.Verdict = results.NotEvaluated
		c.Evidence = fmt.Sprintf("this machine's default timer slack is %.0f ns, not the usual 50 µs (a real-time or tuned process?)", defSlackSeen)
		return c
	}
	var ok int
	var fails []string
	var reduction []float64
	for _, p := range pairs {
		gain := p.defMedian - p.smallMd
		if p.defMedian > 0 {
			reduction = append(reduction, gain/p.defMedian)
		}
		if gain > 0 && gain >= slackShare*p.defMedian {
			ok++
		} else {
			fails = append(fails, fmt.Sprintf("%s@%v %.1f->%.1f µs", p.impl, p.deadline, p.defMedian/1e3, p.smallMd/1e3))
		}
	}
	sort.Float64s(reduction)
	medRed := 0.0
	if len(reduction) > 0 {
		medRed = reduction[len(reduction)/2]
	}
	ev := fmt.Sprintf("%d of %d pairs show it (default slack read back %.0f ns); median reduction of the median overshoot %.0f%%", ok, len(pairs), defSlackSeen, medRed*100)
	if len(fails) > 0 {
		if len(fails) > 6 {
			fails = append(fails[:6], fmt.Sprintf("and %d more", len(fails)-6))
		}
		ev += "; not in: " + strings.Join(fails, ", ")
	}
	c.Evidence = ev
	if float64(ok) >= slackPairsNeeded*float64(len(pairs)) {
		c.Verdict = results.Holds
	} else {
		c.Verdict = results.DoesNotHold
	}
	return c
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
