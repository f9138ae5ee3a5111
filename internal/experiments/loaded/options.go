package loaded

import (
	"runtime"
	"slices"
	"strings"
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

// Options are parkbench loaded's options; the field comments give the flag
// and schbench's own.
type Options struct {
	// Impls (--impl): mechanisms; empty means every one available.
	Impls []string
	// MessageThreads (--message-threads, schbench -m): message threads,
	// each with its own workers.
	MessageThreads int
	// Workers (--workers, schbench -t): workers per message thread at
	// the 1x point; 0 is NumCPU / MessageThreads (at least 1), so that
	// the workers are as many as the CPUs (schbench: num_cpus each).
	Workers int
	// Work (--work, schbench -F/-n): the calibrated CPU work of one
	// request, as iterations of a dependent multiply-add loop timed once
	// per run.
	Work time.Duration
	// Sleep (--sleep, schbench -s): a nanosleep inside each request
	// before its work (schbench's usleep(100), "simulated networking");
	// 0 by default: the request is CPU work only (schbench -C without the
	// sleep).
	Sleep time.Duration
	// Loads (--loads): the open-loop rate sweep, in percent of the
	// nominal capacity NumCPU / Work (one CPU-second of work per CPU per
	// second); the first is the unloaded reference of the collapse figure.
	Loads []int
	// Closed (--closed): also run the closed loop, schbench's default
	// mode: each worker asks its message thread for the next request as
	// soon as it finished one.
	Closed bool
	// Multiples (--oversubscribe): the oversubscription sweep, workers =
	// multiple x the 1x workers, at OversubLoad (--oversub-load, percent).
	Multiples   []int
	OversubLoad int
	// Arrival (--arrival): uniform (wrk2) or burst (schbench -R).
	Arrival string
	// Warmup (--warmup, schbench -w) and Duration (--duration, schbench
	// -r) of each configuration: requests are sent during both, and only
	// those of the measured window count.
	Warmup, Duration time.Duration
	// Rounds (--rounds): runs per configuration, the summary is their
	// median.
	Rounds int
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
	if !slices.Contains(Arrivals, o.Arrival) {
		return driver.Bad("Arrival", "invalid arrival %q: valid are %s", o.Arrival, strings.Join(Arrivals, ", "))
	}
	if o.Warmup < 0 || o.Warmup > MaxDuration {
		return driver.Bad("Warmup", "invalid warm-up %v: must be between 0 and %v", o.Warmup, MaxDuration)
	}
	if o.Duration < 10*time.Millisecond || o.Duration > MaxDuration {
		return driver.Bad("Duration", "invalid duration %v: must be between 10ms and %v", o.Duration, MaxDuration)
	}
	return driver.CheckCount("Rounds", "round count", o.Rounds, 1, MaxRounds)
}
