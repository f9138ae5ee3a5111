package loaded

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/runenv"
)

// Metric names (summary keys: the median over rounds).
const (
	MWakeP50    = "wakeup_p50_ns"
	MWakeP90    = "wakeup_p90_ns"
	MWakeP99    = "wakeup_p99_ns"
	MWakeP999   = "wakeup_p999_ns"
	MWakeMax    = "wakeup_max_ns"
	MWakeups    = "wakeups"
	MReqP50     = "request_p50_ns"
	MReqP90     = "request_p90_ns"
	MReqP99     = "request_p99_ns"
	MReqP999    = "request_p999_ns"
	MReqMax     = "request_max_ns"
	MRequests   = "requests"
	MSvcP50     = "service_p50_ns"
	MSvcP99     = "service_p99_ns"
	MRPS        = "rps"
	MOffered    = "offered_rps"
	MDropped    = "dropped"
	MUnfinished = "unfinished"
	MCswPerReq  = "ctxsw_per_request"
	MCPUBusy    = "cpu_busy_cores"
	MWorkers    = "workers"
	MLoad       = "load_pct"
)

// cfgSpec is one configuration: a mechanism at a load (0: the closed loop)
// with workers per message thread.
type cfgSpec struct {
	mech     mechanism
	load     int // % of the nominal capacity
	closed   bool
	workers  int // per message thread
	multiple int
	sweeps   []string // "rate", "oversubscribe"
	group    int      // the sweep point: its mechanisms run round-interleaved
}

// key is impl/load=P/oversub=K (or impl/closed/oversub=K): the load in
// percent of the nominal capacity and the workers as a multiple of the
// CPUs, so that plot and report group a sweep by the other parameter.
func (c cfgSpec) key() string {
	if c.closed {
		return fmt.Sprintf("%s/closed/oversub=%d", c.mech.name, c.multiple)
	}
	return fmt.Sprintf("%s/load=%d/oversub=%d", c.mech.name, c.load, c.multiple)
}

func fmtLoad(l int) string { return strconv.Itoa(l) + "%" }

// loadedPlan is a validated run.
type loadedPlan struct {
	mechs    []mechanism
	cfgs     []cfgSpec
	warnings []string
	notes    []string
}

func catalog() driver.Catalog[mechanism] {
	return driver.Catalog[mechanism]{Items: allMechanisms, Info: func(m mechanism) driver.ImplInfo {
		return driver.ImplInfo{Name: m.name, Kind: m.kind, Summary: m.summary, Why: m.why()}
	}}
}

// ImplNames returns every --impl name, in order.
func ImplNames() []string { return catalog().Names() }

// Impls describes every mechanism for `parkbench list`.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// Validate checks o without measuring anything.
func (o Options) Validate() error {
	_, err := o.resolve()
	return err
}

func (o Options) resolve() (*loadedPlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	if o.Arrival == Burst && o.Duration < time.Second {
		return nil, driver.Bad("Arrival", "burst arrivals post each second's requests at the top of the second (schbench -R): give a duration of 1s or more")
	}
	sel, err := catalog().Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	if len(sel.Items) == 0 {
		return nil, driver.Bad("Impls", "no loaded mechanism is available here")
	}
	p := &loadedPlan{mechs: sel.Items, warnings: sel.Warnings, notes: sel.Notes}
	w := o.workers()
	// The sweep points in order, each once (the 1x oversubscription point
	// is a rate point too, at the oversubscription load); then every
	// mechanism at each point, so that the mechanisms of one point run
	// next to each other (and, with several rounds, round-interleaved):
	// a change in the machine's load hits them alike.
	type point struct {
		load     int
		closed   bool
		multiple int
		sweeps   []string
	}
	var points []point
	index := map[string]int{}
	add := func(pt point, sweep string) {
		k := fmt.Sprintf("%d/%v/%d", pt.load, pt.closed, pt.multiple)
		if i, ok := index[k]; ok {
			points[i].sweeps = append(points[i].sweeps, sweep)
			return
		}
		pt.sweeps = []string{sweep}
		index[k] = len(points)
		points = append(points, pt)
	}
	for _, l := range o.Loads {
		add(point{load: l, multiple: 1}, "rate")
	}
	if o.Closed {
		add(point{closed: true, multiple: 1}, "rate")
	}
	for _, k := range o.Multiples {
		add(point{load: o.OversubLoad, multiple: k}, "oversubscribe")
	}
	for g, pt := range points {
		for _, m := range sel.Items {
			p.cfgs = append(p.cfgs, cfgSpec{mech: m, load: pt.load, closed: pt.closed, workers: pt.multiple * w, multiple: pt.multiple, sweeps: pt.sweeps, group: g})
		}
	}
	return p, nil
}

// capacity is the nominal requests per second the machine can serve: one
// CPU-second of work per CPU per second, and no more than the 1x workers
// can take with the sleep inside each request.
func (o Options) capacity() float64 {
	c := float64(runtime.NumCPU()) / o.Work.Seconds()
	byWorkers := float64(o.workers()*o.MessageThreads) / (o.Work + o.Sleep).Seconds()
	return math.Min(c, byWorkers)
}

// Run runs parkbench loaded: schbench's method with open-loop arrivals.
// See doc.go.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}

// Plan validates o (an *driver.OptionError for bad input) and returns the
// run it describes, measuring nothing yet.
func Plan(o Options) (driver.Plan, error) {
	p, err := o.resolve()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
		return p.run(ctx, o, progress)
	}, nil
}

func (p *loadedPlan) run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	nsPerStep := calibrate()
	steps := max(1, int(math.Round(float64(o.Work)/nsPerStep)))
	exp := &results.Experiment{Name: "loaded", Metrics: Metrics, Options: o.asMap(p.mechs), Warnings: p.warnings, Notes: p.notes}
	exp.Options["capacity_rps"] = strconv.FormatFloat(o.capacity(), 'f', 0, 64)
	exp.Options["work_step_ns"] = strconv.FormatFloat(nsPerStep, 'f', 3, 64)
	exp.Options["work_steps"] = strconv.Itoa(steps)
	exp.Notes = append(exp.Notes,
		fmt.Sprintf("method: schbench (masoncl/schbench): %d message thread(s), each with its workers; a request is %v of calibrated CPU work (%d multiply-add steps of %.2f ns)%s; load = the offered rate in %% of the nominal capacity %.0f requests/s (NumCPU / work)",
			o.MessageThreads, o.Work, steps, nsPerStep, sleepNote(o.Sleep), o.capacity()),
		fmt.Sprintf("arrivals: %s; wakeup latency = the worker's clock after its wait - the message thread's right before the wake call; request latency = completion - the request's intended start (the open loop: no coordinated omission); %v warm-up, %v measured per configuration", arrivalNote(o.Arrival), o.Warmup, o.Duration))
	if b := lot.CurrentBackend(); b.Name != "" {
		exp.Notes = append(exp.Notes, "lot parks through the "+b.Name+" thread parker")
	}
	var rt results.Runtime
	var gcCycles uint32
	done := 0
	total := len(p.cfgs) * o.Rounds
	for start := 0; start < len(p.cfgs); {
		end := start
		for end < len(p.cfgs) && p.cfgs[end].group == p.cfgs[start].group {
			end++
		}
		group := p.cfgs[start:end]
		cfgs := make([]*results.Config, len(group))
		vals := make([][]map[string]float64, len(group))
		hists := make([]*hdrhistogram.Histogram, len(group))
		for k, c := range group {
			cfgs[k] = newConfig(c, o)
		}
		pr := probe.Measure(probe.DefaultCPUs())
		fg := probe.StartForeign()
		for r := 0; r < o.Rounds; r++ {
			for k, c := range group {
				if driver.Interrupted(ctx) {
					fg.Stop()
					return nil, ctx.Err()
				}
				progress.Report(done, total, c.key())
				threads := o.MessageThreads * (c.workers + 1)
				var env *runenv.Env
				if c.mech.goroutines {
					env = runenv.EnterProcs(threads, runtime.NumCPU())
				} else {
					env = runenv.Enter(threads)
				}
				m, h, err := runOnce(ctx, c, o, steps)
				grt := env.Runtime()
				env.Restore()
				done++
				if err != nil {
					fg.Stop()
					return nil, err
				}
				gcCycles += grt.GCCycles
				if grt.GOMAXPROCS > rt.GOMAXPROCS {
					rt = grt
				}
				cfgs[k].Params["gomaxprocs"] = strconv.Itoa(grt.GOMAXPROCS)
				cfgs[k].Rounds = append(cfgs[k].Rounds, results.Round{Metrics: m})
				vals[k] = append(vals[k], m)
				if hists[k] == nil {
					hists[k] = h
				}
			}
		}
		foreign := fg.Stop()
		for k, cfg := range cfgs {
			cfg.Probe = pr
			if foreign != nil && foreign.Fraction >= 0 {
				cfg.Foreign = foreign
				driver.WarnForeign(cfg)
			}
			cfg.Summary = driver.MedianOfRounds(vals[k])
			if enc, err := results.EncodeHist(hists[k]); err == nil && hists[k].TotalCount() > 0 {
				cfg.Rounds[0].Histogram = enc
			}
			if _, ok := cfg.Summary[MWakeP99]; !ok {
				cfg.Warnings = append(cfg.Warnings, "no worker slept during the window: each always had a request queued (saturated); no wakeup latency")
			}
			if d := cfg.Summary[MDropped]; d > 0 {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%.0f requests dropped: a worker's queue (%d) was full: past saturation", d, ringSize))
			}
			exp.Configs = append(exp.Configs, cfg)
		}
		start = end
	}
	progress.Report(total, total, "")
	rt.GCCycles = gcCycles
	rt.SyscallMode = "syscall"
	exp.Runtime = rt
	exp.Claims = Claims(exp.Configs)
	exp.Notes = append(exp.Notes, CollapseNotes(exp.Configs)...)
	return exp, nil
}

// newConfig is a configuration's record before its rounds.
func newConfig(c cfgSpec, o Options) *results.Config {
	cfg := &results.Config{Key: c.key(), Impl: c.mech.name, Kind: c.mech.kind, Placement: driver.Unpinned,
		Params: map[string]string{
			"workers": strconv.Itoa(c.workers * o.MessageThreads), "workers_per_message_thread": strconv.Itoa(c.workers),
			"message_threads": strconv.Itoa(o.MessageThreads), "multiple": strconv.Itoa(c.multiple),
			"sweep": strings.Join(c.sweeps, ","), "arrival": o.Arrival,
		}}
	// load and oversub are set only on the configurations of their sweep:
	// plot draws each sweep against its own parameter.
	if c.closed {
		cfg.Params["mode"] = "closed"
	} else {
		cfg.Params["mode"] = "open"
		cfg.Params["load_pct"] = strconv.Itoa(c.load)
		if slices.Contains(c.sweeps, "rate") {
			cfg.Params["load"] = strconv.Itoa(c.load)
		}
	}
	if slices.Contains(c.sweeps, "oversubscribe") {
		cfg.Params["oversub"] = strconv.Itoa(c.multiple)
	}
	return cfg
}

func sleepNote(d time.Duration) string {
	if d <= 0 {
		return ""
	}
	return fmt.Sprintf(" after a %v nanosleep (schbench -s)", d)
}

func arrivalNote(a string) string {
	if a == Burst {
		return "burst, schbench -R's: each second's requests posted at once at the top of the second"
	}
	return "uniform, wrk2's: evenly spaced intended start times; a late message thread sends the overdue requests at once and their latency counts from their intended start"
}

// worker is one worker thread's state.
type worker struct {
	s    slot
	q    ring
	next *worker // the closed loop's list of workers waiting for a request (under the list's CAS)
	// Recorded by the worker only; read after it exited.
	wake, req, svc *hdrhistogram.Histogram
	done           int64  // requests completed inside the window
	left           int64  // requests still queued at the end
	sink           uint64 // the work's result, kept live
	_              [64]byte
}

// messenger is one message thread and its workers.
type messenger struct {
	s       slot
	workers []*worker
	list    atomic.Pointer[worker] // closed loop
	dropped int64
	_       [64]byte
}

// histogram for one thread's samples: 1 ns to 60 s, 2 significant figures
// (1% resolution, about 30 KB: one per worker and figure).
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 60e9, 2) }

func record(h *hdrhistogram.Histogram, v int64) {
	_ = h.RecordValue(min(max(v, 1), 60e9))
}

// roundStarted, when set (tests only), is called as every round starts,
// with its workers and its stop flag: fault injection.
var roundStarted func(m *mechanism, workers []*worker, stop *atomic.Bool)

// window is the measured window [start, end) on the clock.
type window struct{ start, end int64 }

func (w window) in(t int64) bool { return t >= w.start && t < w.end }

// runOnce runs one round of a configuration and returns its metrics and
// the wakeup-latency histogram.
func runOnce(ctx context.Context, c cfgSpec, o Options, steps int) (map[string]float64, *hdrhistogram.Histogram, error) {
	m := &c.mech
	var (
		stop   atomic.Bool
		readyN atomic.Int64
		wg     sync.WaitGroup
		pinErr atomic.Pointer[error]
	)
	go1 := func(f func()) {
		wg.Add(1)
		body := func() { defer wg.Done(); f() }
		if m.goroutines {
			go body()
		} else {
			osthread.Go(body)
		}
	}
	msgs := make([]*messenger, o.MessageThreads)
	var all []*worker
	for i := range msgs {
		ms := &messenger{}
		msgs[i] = ms
		for j := 0; j < c.workers; j++ {
			w := &worker{wake: newHist(), req: newHist(), svc: newHist()}
			ms.workers = append(ms.workers, w)
			all = append(all, w)
		}
	}
	var win window // set before the start signal; read after it
	start := make(chan struct{})
	sleepNs := int64(o.Sleep)

	for _, ms := range msgs {
		for _, w := range ms.workers {
			go1(func() {
				m.setup(&w.s)
				hasWork := func() bool { return !w.q.empty() || stop.Load() }
				seed := uint64(nanotime())
				onList := false // closed loop: on ms's list, no request taken since
				readyN.Add(1)
				<-start
				for {
					for {
						intended, ok := w.q.pop()
						if !ok {
							break
						}
						// The message thread took w off its list before it
						// queued this request (closedLoop).
						onList = false
						s := nanotime()
						if sleepNs > 0 {
							osthread.Sleep(time.Duration(sleepNs))
						}
						seed = work(steps, seed)
						e := nanotime()
						if win.in(intended) {
							record(w.req, e-intended)
							record(w.svc, e-s)
						}
						if win.in(e) {
							w.done++
						}
					}
					if stop.Load() {
						break
					}
					// The closed loop: back on the message thread's list
					// (its queue is empty: it takes one request at a
					// time), then wait for the next request. Once per
					// request: a wake is not a request. A poster that read
					// sleepy during this worker's previous sleep can land
					// its CAS on this sleep's sleepy (the state word's ABA,
					// mech.go), so the worker can wake with nothing queued
					// while still on the list; pushing it again would link
					// it into the list twice and the message thread would
					// walk a cycle.
					if c.closed && !onList {
						ms.push(w)
						onList = true
						m.post(&ms.s)
					}
					if m.sleep(&w.s, hasWork) {
						t := nanotime()
						if st := w.s.stamp.Load(); win.in(st) {
							record(w.wake, t-st)
						}
					}
				}
				w.left = int64(w.q.size())
				w.sink = seed
			})
		}
	}
	for _, ms := range msgs {
		go1(func() {
			if !m.goroutines {
				if err := osthread.SetTimerSlack(time.Nanosecond); err != nil {
					pinErr.CompareAndSwap(nil, &err)
				}
			}
			m.setup(&ms.s)
			readyN.Add(1)
			<-start
			if c.closed {
				ms.closedLoop(m, &stop, win)
			} else {
				ms.openLoop(m, &stop, win, float64(c.load)/100*o.capacity()/float64(o.MessageThreads), o.Arrival, !m.goroutines)
			}
		})
	}
	for readyN.Load() < int64(len(all)+len(msgs)) {
		time.Sleep(50 * time.Microsecond)
	}
	t0 := nanotime()
	win = window{start: t0 + int64(o.Warmup), end: t0 + int64(o.Warmup) + int64(o.Duration)}
	close(start)
	if roundStarted != nil {
		roundStarted(m, all, &stop)
	}
	// Sleep out warm-up + window, then give the open loop's backlog a
	// drain of at most one window before stopping (what is left is
	// counted as unfinished).
	sleepUntil(ctx, win.start)
	u0, _ := osthread.ProcessUsage()
	sleepUntil(ctx, win.end)
	u1, _ := osthread.ProcessUsage()
	drainEnd := nanotime() + int64(o.Duration)
	for !c.closed && ctx.Err() == nil && nanotime() < drainEnd && !allEmpty(all) {
		time.Sleep(time.Millisecond)
	}
	stop.Store(true)
	for _, ms := range msgs {
		m.forcePost(&ms.s)
		for _, w := range ms.workers {
			m.forcePost(&w.s)
		}
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(30*time.Second + time.Duration(len(all))*10*time.Millisecond):
		return nil, nil, fmt.Errorf("loaded %s: lost wakeup: threads still waiting 30 s after the stop", c.key())
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if p := pinErr.Load(); p != nil {
		return nil, nil, fmt.Errorf("loaded %s: setting the message thread's timer slack: %w", c.key(), *p)
	}

	wake, req, svc := driver.NewHist(), driver.NewHist(), driver.NewHist()
	var done, left, dropped int64
	for _, w := range all {
		wake.Merge(w.wake)
		req.Merge(w.req)
		svc.Merge(w.svc)
		done += w.done
		workSink += w.sink
		left += w.left
	}
	for _, ms := range msgs {
		dropped += ms.dropped
	}
	secs := float64(o.Duration) / 1e9
	res := map[string]float64{
		MWakeups: float64(wake.TotalCount()), MRequests: float64(req.TotalCount()),
		MRPS: float64(done) / secs, MDropped: float64(dropped), MUnfinished: float64(left),
		MWorkers: float64(len(all)),
		MCPUBusy: float64(u1.UserNs+u1.SysNs-u0.UserNs-u0.SysNs) / float64(o.Duration),
	}
	// A figure without samples is absent, never 0: no worker slept in the
	// window (each always had a request queued: saturated), or none
	// completed.
	if wake.TotalCount() > 0 {
		res[MWakeP50], res[MWakeP90], res[MWakeP99], res[MWakeP999] = q(wake, 50), q(wake, 90), q(wake, 99), q(wake, 99.9)
		res[MWakeMax] = float64(wake.Max())
	}
	if req.TotalCount() > 0 {
		res[MReqP50], res[MReqP90], res[MReqP99], res[MReqP999] = q(req, 50), q(req, 90), q(req, 99), q(req, 99.9)
		res[MReqMax] = float64(req.Max())
		res[MSvcP50], res[MSvcP99] = q(svc, 50), q(svc, 99)
	}
	if done > 0 {
		res[MCswPerReq] = float64(u1.Switches()-u0.Switches()) / float64(done)
	}
	if !c.closed {
		res[MLoad] = float64(c.load)
		res[MOffered] = float64(c.load) / 100 * o.capacity()
	}
	return res, wake, nil
}

func q(h *hdrhistogram.Histogram, p float64) float64 { return float64(h.ValueAtQuantile(p)) }

func allEmpty(ws []*worker) bool {
	for _, w := range ws {
		if !w.q.empty() {
			return false
		}
	}
	return true
}

// sleepUntil sleeps until the clock reads t, or ctx is cancelled.
func sleepUntil(ctx context.Context, t int64) {
	for {
		d := t - nanotime()
		if d <= 0 || ctx.Err() != nil {
			return
		}
		time.Sleep(min(time.Duration(d), 50*time.Millisecond))
	}
}

// push adds w to the closed loop's list (schbench's xlist_add,
// schbench.c:866-880).
func (ms *messenger) push(w *worker) {
	for {
		old := ms.list.Load()
		w.next = old
		if ms.list.CompareAndSwap(old, w) {
			return
		}
	}
}

// pace sleeps the message thread until the clock reads t: its own
// nanosleep with a 1 ns timer slack (a locked thread), or time.Sleep
// (goroutines).
func pace(t int64, thread bool) {
	d := time.Duration(t - nanotime())
	if d <= 0 {
		return
	}
	if thread {
		osthread.Sleep(d)
	} else {
		time.Sleep(d)
	}
}

// openLoop sends requests at rate per second to its workers round-robin
// (schbench's -R loop: cur_tid++ % worker_threads, schbench.c:1280-1282)
// until the window ends: uniform arrivals at their intended start times,
// or a burst at the top of every second.
func (ms *messenger) openLoop(m *mechanism, stop *atomic.Bool, win window, rate float64, arrival string, thread bool) {
	if rate <= 0 {
		return
	}
	t0 := nanotime()
	rr := 0
	send := func(intended int64) {
		w := ms.workers[rr%len(ms.workers)]
		rr++
		if !w.q.push(intended) {
			ms.dropped++
			return
		}
		m.post(&w.s)
	}
	if arrival == Burst {
		per := int(math.Round(rate))
		for period := t0; period < win.end && !stop.Load(); period += int64(time.Second) {
			pace(period, thread)
			for i := 0; i < per && !stop.Load(); i++ {
				send(period)
			}
		}
		return
	}
	interval := 1e9 / rate
	for i := 0; !stop.Load(); i++ {
		intended := t0 + int64(float64(i)*interval)
		if intended >= win.end {
			return
		}
		pace(intended, thread)
		send(intended)
	}
}

// closedLoop is schbench's default mode (run_msg_thread,
// schbench.c:1166-1178): wait until workers are back, then give each one
// its next request, at once.
func (ms *messenger) closedLoop(m *mechanism, stop *atomic.Bool, win window) {
	hasWork := func() bool { return ms.list.Load() != nil || stop.Load() }
	for !stop.Load() {
		for w := ms.list.Swap(nil); w != nil; {
			next := w.next
			w.next = nil
			if !w.q.push(nanotime()) {
				ms.dropped++
			}
			m.post(&w.s)
			w = next
		}
		m.sleep(&ms.s, hasWork)
	}
}

func (o Options) asMap(mechs []mechanism) map[string]string {
	var names, loads, mults []string
	for _, m := range mechs {
		names = append(names, m.name)
	}
	for _, l := range o.Loads {
		loads = append(loads, strconv.Itoa(l))
	}
	for _, k := range o.Multiples {
		mults = append(mults, strconv.Itoa(k))
	}
	return map[string]string{
		"impl":            strings.Join(names, ","),
		"message_threads": strconv.Itoa(o.MessageThreads),
		"workers":         strconv.Itoa(o.workers()),
		"work":            o.Work.String(),
		"sleep":           o.Sleep.String(),
		"loads":           strings.Join(loads, ","),
		"closed":          strconv.FormatBool(o.Closed),
		"oversubscribe":   strings.Join(mults, ","),
		"oversub_load":    strconv.Itoa(o.OversubLoad),
		"arrival":         o.Arrival,
		"warmup":          o.Warmup.String(),
		"duration":        o.Duration.String(),
		"rounds":          strconv.Itoa(o.Rounds),
	}
}
