package loaded

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Arrival processes of the open loop.
const (
	// Uniform spaces the requests evenly at the rate, each with its
	// intended start time (wrk2's constant throughput): a message thread
	// that falls behind sends the late ones at once, and their latency
	// counts from when they should have started.
	Uniform = "uniform"
	// Burst is schbench -R's: every second's requests posted at once at
	// the top of the second, then the rest of the second asleep
	// (schbench.c:1258-1317).
	Burst = "burst"
)

// Arrivals are the accepted arrival processes.
var Arrivals = []string{Uniform, Burst}

// Bounds of the options.
const (
	MaxMessageThreads = 64
	MaxWorkers        = 1024
	MaxLoad           = 1000 // % of the nominal capacity
	MaxWork           = 100 * time.Millisecond
	MaxDuration       = 10 * time.Minute
	MaxRounds         = 100
	MaxMultiple       = 64
)

// Options are parkbench loaded's options; each field's tags give its flag,
// help and echo key (internal/cli/flags.go), its comment schbench's own.
type Options struct {
	// Impls: mechanisms; empty means every one available.
	Impls []string `flag:"impl" help:"mechanisms: a name, a comma list, or all available ({ImplNames})"`
	// MessageThreads (schbench -m): message threads, each with its own
	// workers.
	MessageThreads int `flag:"message-threads" opt:"message_threads" help:"message threads, each with its workers (schbench -m)"`
	// Workers (schbench -t): workers per message thread at the 1x point; 0 is
	// NumCPU / MessageThreads (at least 1), so that the workers are as many as
	// the CPUs (schbench: num_cpus each).
	Workers int `flag:"workers" help:"workers per message thread at 1x (schbench -t); 0 = the CPUs / message threads"`
	// Work (schbench -F/-n): the calibrated CPU work of one request, as
	// iterations of a dependent multiply-add loop timed once per run.
	Work time.Duration `flag:"work" opt:"work" help:"calibrated CPU work per request (schbench -F/-n's matrix math)"`
	// Sleep (schbench -s): a nanosleep inside each request before its work
	// (schbench's usleep(100), "simulated networking"); 0 by default: the
	// request is CPU work only (schbench -C without the sleep).
	Sleep time.Duration `flag:"sleep" opt:"sleep" help:"a nanosleep inside each request before its work (schbench -s)"`
	// Loads: the open-loop rate sweep, in percent of the nominal capacity
	// NumCPU / Work (one CPU-second of work per CPU per second); the first is
	// the unloaded reference of the collapse figure.
	Loads []int `flag:"loads" opt:"loads" help:"open-loop rates in percent of the nominal capacity, rising, a comma list, each 1..{MaxLoad}; the first is the unloaded reference"`
	// Closed: also run the closed loop, schbench's default mode: each worker
	// asks its message thread for the next request as soon as it finished one.
	Closed bool `flag:"closed" opt:"closed" help:"also run the closed loop (schbench's default mode)"`
	// Multiples: the oversubscription sweep, workers = multiple x the 1x
	// workers, at OversubLoad (percent).
	Multiples   []int `flag:"oversubscribe" opt:"oversubscribe" help:"oversubscription sweep: multiples of the 1x workers, a comma list"`
	OversubLoad int   `flag:"oversub-load" opt:"oversub_load" help:"the oversubscription sweep's rate, in percent of the nominal capacity"`
	// Arrival: uniform (wrk2) or burst (schbench -R).
	Arrival string `flag:"arrival" opt:"arrival" help:"uniform (wrk2's intended start times) or burst (schbench -R: each second's requests at once)"`
	// Warmup (schbench -w) and Duration (schbench -r) of each configuration:
	// requests are sent during both, and only those of the measured window
	// count.
	Warmup   time.Duration `flag:"warmup" opt:"warmup" help:"warm-up before the measured window (schbench -w)"`
	Duration time.Duration `flag:"duration" opt:"duration" help:"measured window per configuration (schbench -r)"`
	// Rounds: runs per configuration, the summary is their median.
	Rounds int `flag:"rounds" opt:"rounds" help:"rounds per configuration; the summary is their median"`
}

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"MaxLoad": MaxLoad,
	}
}

// DefaultWorkers is the 1x workers per message thread.
func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return max(1, runtime.NumCPU()/max(1, o.MessageThreads))
}

// DefaultOptions: one message thread with NumCPU workers, 200 µs of work
// per request, loads 10% to 100% of the nominal capacity, the closed loop,
// 2x to 8x oversubscription at 50%, uniform arrivals, 0.3 s warm-up and
// 1 s measured, 3 rounds (round-interleaved across the mechanisms: the
// summary is each figure's median over them).
func DefaultOptions() Options {
	return Options{
		MessageThreads: 1,
		Work:           200 * time.Microsecond,
		Loads:          []int{10, 25, 50, 75, 100},
		Closed:         true,
		Multiples:      []int{1, 2, 4, 8},
		OversubLoad:    50,
		Arrival:        Uniform,
		Warmup:         300 * time.Millisecond,
		Duration:       time.Second,
		Rounds:         3,
	}
}

// QuickOptions is a short run: loads 10% and 80%, the closed loop, 4x
// oversubscription at 80%, 40 ms warm-up and 120 ms measured, one round.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Loads = []int{10, 80}
	o.OversubLoad = 80
	o.Multiples = []int{1, 4}
	o.Warmup = 40 * time.Millisecond
	o.Duration = 120 * time.Millisecond
	o.Rounds = 1
	return o
}

// validateCounts checks what needs no look at the machine.
func (o Options) validateCounts() error {
	if err := driver.CheckCount("MessageThreads", "message thread count", o.MessageThreads, 1, MaxMessageThreads); err != nil {
		return err
	}
	if err := driver.CheckCount("Workers", "workers per message thread", o.Workers, 0, MaxWorkers); err != nil {
		return err
	}
	if o.Work < time.Microsecond || o.Work > MaxWork {
		return driver.Bad("Work", "invalid work %v: must be between 1µs and %v", o.Work, MaxWork)
	}
	if o.Sleep < 0 || o.Sleep > MaxWork {
		return driver.Bad("Sleep", "invalid sleep %v: must be between 0 and %v", o.Sleep, MaxWork)
	}
	if len(o.Loads) == 0 && !o.Closed && len(o.Multiples) == 0 {
		return driver.Bad("Loads", "nothing to run: give loads, the closed loop or oversubscription multiples")
	}
	for _, l := range o.Loads {
		if err := driver.CheckCount("Loads", "load (% of the nominal capacity)", l, 1, MaxLoad); err != nil {
			return err
		}
	}
	if !slices.IsSorted(o.Loads) {
		return driver.Bad("Loads", "give the loads in rising order (the first is the unloaded reference)")
	}
	for _, m := range o.Multiples {
		if err := driver.CheckCount("Multiples", "oversubscription multiple", m, 1, MaxMultiple); err != nil {
			return err
		}
		if m*o.workers() > MaxWorkers {
			return driver.Bad("Multiples", "multiple %d gives %d workers per message thread; at most %d", m, m*o.workers(), MaxWorkers)
		}
	}
	if len(o.Multiples) > 0 {
		if err := driver.CheckCount("OversubLoad", "oversubscription load (%)", o.OversubLoad, 1, MaxLoad); err != nil {
			return err
		}
	}
	if err := driver.CheckChoice("Arrival", "arrival", o.Arrival, Arrivals); err != nil {
		return err
	}
	if o.Warmup < 0 || o.Warmup > MaxDuration {
		return driver.Bad("Warmup", "invalid warm-up %v: must be between 0 and %v", o.Warmup, MaxDuration)
	}
	if o.Duration < 10*time.Millisecond || o.Duration > MaxDuration {
		return driver.Bad("Duration", "invalid duration %v: must be between 10ms and %v", o.Duration, MaxDuration)
	}
	return driver.CheckCount("Rounds", "round count", o.Rounds, 1, MaxRounds)
}

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
	o        Options
	mechs    []mechanism
	cfgs     []cfgSpec
	warnings []string
	notes    []string
}

// Validate checks o without measuring anything.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// plan validates o and lays out its configurations: the sweep points, each
// with every mechanism.
func plan(o Options) (*loadedPlan, error) {
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
	p := &loadedPlan{o: o, mechs: sel.Items, warnings: sel.Warnings, notes: sel.Notes}
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
	return min(c, byWorkers)
}
