package wake

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// The benches, perf bench futex's four (wake, wake-parallel, requeue,
// hash) and the condvar producer/consumer of parking_lot issue #448.
const (
	BenchWake     = "wake"
	BenchParallel = "wake-parallel"
	BenchRequeue  = "requeue"
	BenchHash     = "hash"
	BenchCondvar  = "condvar"
)

// Benches lists the benches in run order.
var Benches = []string{BenchWake, BenchParallel, BenchRequeue, BenchHash, BenchCondvar}

// Bounds of the options.
const (
	MaxThreads  = 4096
	MaxRuns     = 1000
	MaxSettle   = 10 * time.Second
	MaxFutexes  = 1 << 20
	MaxHashTime = 10 * time.Minute
	MaxItems    = 100_000_000
	MaxCapacity = 1 << 20
)

// Options are parkbench wake's options; each field's tags give its flag,
// help and echo key (internal/cli/flags.go), its comment perf's own name
// for it.
type Options struct {
	// Impls: names; empty means every implementation available. A bench runs
	// the chosen implementations that have it.
	Impls []string `flag:"impl" help:"implementations: a name, a comma list, or all available ({ImplNames}); a bench runs those that have it"`
	// Benches: which of Benches to run; empty means all.
	Benches []string `flag:"bench" help:"benches: {Benches}, a comma list, or all"`
	// Threads (perf -t): the waiters of wake, wake-parallel and requeue,
	// swept.
	Threads []int `flag:"threads" opt:"threads,zero=all" help:"waiters N (perf -t), a comma list, each 1..{MaxThreads}"`
	// HashThreads (perf hash -t): the hash bench's threads, swept; by default
	// 1 to NumCPU (powers of two and NumCPU): whether a table stays flat as
	// threads are added.
	HashThreads []int `flag:"hash-threads" opt:"hash_threads,zero=all" help:"hash: threads (perf hash -t), a comma list"`
	// Wakes (perf wake -w): threads woken per call, swept; 0 is all at once.
	Wakes []int `flag:"wakes" opt:"wakes,zero=all" help:"wake: threads woken per call (perf wake -w), a comma list; 0 = all at once"`
	// Wakers (perf wake-parallel -w): parallel wakers, swept; each wakes
	// Threads/Wakers with one call (it must divide).
	Wakers []int `flag:"wakers" opt:"wakers,zero=all" help:"wake-parallel: waker threads (perf wake-parallel -w), a comma list; each must divide N"`
	// Requeues (perf requeue -q): threads moved per call, swept; 0 is all at
	// once (perf -B).
	Requeues []int `flag:"requeues" opt:"requeues,zero=all" help:"requeue: threads moved per call (perf requeue -q), a comma list; 0 = all at once (perf -B)"`
	// Runs (perf bench -r): runs per configuration, fresh threads each; the
	// figures are over runs, perf's mean and (+-) and a median and p99.
	Runs int `flag:"runs" opt:"runs" help:"runs per configuration, fresh threads each (perf bench -r)"`
	// Settle: how long the waker sleeps between seeing every waiter asleep and
	// the timed wake; perf's usleep(100000)
	// (tools/perf/bench/futex-wake.c:199). Long enough for the waiters' CPUs
	// to go idle, which is what a wake then pays for.
	Settle time.Duration `flag:"settle" opt:"settle" help:"the waker's sleep between seeing every waiter asleep and the timed wake (perf's usleep(100000))"`
	// Futexes (perf hash -f): futex words (keys) per thread.
	Futexes int `flag:"futexes" opt:"futexes" help:"hash: futex words per thread (perf hash -f)"`
	// HashTime (perf hash -r): how long each hash round runs.
	HashTime time.Duration `flag:"hash-time" opt:"hash_time" help:"hash: length of one round (perf hash -r, in seconds there)"`
	// HashRounds: hash rounds per configuration (perf runs one; more give
	// compare its rounds).
	HashRounds int `flag:"hash-rounds" opt:"hash_rounds" help:"hash: rounds per configuration"`
	// Items: items per producer/consumer round; Capacity the bounded queue's
	// size; NotifyHeld notifies with the mutex held (the Rust documentation's
	// examples) or after unlocking; PCRounds rounds per configuration.
	Items      int  `flag:"items" opt:"items" help:"condvar: items per round"`
	Capacity   int  `flag:"capacity" opt:"capacity" help:"condvar: the bounded queue's capacity"`
	NotifyHeld bool `flag:"notify-held" opt:"notify_held" help:"condvar: notify with the mutex held (true) or just after unlocking (false)"`
	PCRounds   int  `flag:"pc-rounds" opt:"pc_rounds" help:"condvar: rounds per configuration"`
}

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"Benches":    Benches,
		"MaxThreads": MaxThreads,
	}
}

// DefaultOptions is perf's method: waiters = online CPUs (perf's default)
// and two larger N for the waker's cost against N, one at a time and all
// at once, 10 runs, the 100 ms settle; hash over 1024 futexes per thread
// at 1 to NumCPU threads, 1 s x 3; the producer/consumer with 200 000
// items through a 16-slot queue, 3 rounds.
func DefaultOptions() Options {
	n := runtime.NumCPU()
	return Options{
		Threads:     driver.SortedDistinct([]int{n, 16, 128}),
		HashThreads: upTo(n),
		Wakes:       []int{1, 0},
		Wakers:      []int{n},
		Requeues:    []int{1, 0},
		Runs:        10,
		Settle:      100 * time.Millisecond,
		Futexes:     1024,
		HashTime:    time.Second,
		HashRounds:  3,
		Items:       200_000,
		Capacity:    16,
		NotifyHeld:  true,
		PCRounds:    3,
	}
}

// QuickOptions is a short run (a few seconds): N = NumCPU and 16, 3 runs,
// a 10 ms settle, hash 100 ms x 2, 20 000 items x 2.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Threads = driver.SortedDistinct([]int{runtime.NumCPU(), 16})
	o.Runs = 3
	o.Settle = 10 * time.Millisecond
	o.HashTime = 100 * time.Millisecond
	o.HashRounds = 2
	o.Items = 20_000
	o.PCRounds = 2
	return o
}

// upTo is 1, 2, 4, ... below n, and n.
func upTo(n int) []int {
	var out []int
	for k := 1; k < n; k *= 2 {
		out = append(out, k)
	}
	return append(out, n)
}

// benches resolves Benches (empty: all), in run order.
func (o Options) benches() ([]string, error) {
	if len(o.Benches) == 0 || slices.Contains(o.Benches, driver.All) {
		return Benches, nil
	}
	for _, b := range o.Benches {
		if err := driver.CheckChoiceOrAll("Benches", "bench", b, Benches); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, b := range Benches {
		if slices.Contains(o.Benches, b) {
			out = append(out, b)
		}
	}
	return out, nil
}

// validateCounts checks what needs no look at the machine.
func (o Options) validateCounts() error {
	bs, err := o.benches()
	if err != nil {
		return err
	}
	has := func(b string) bool { return slices.Contains(bs, b) }
	lists := []struct {
		field, what string
		v           []int
		lo, hi      int
		need        bool
	}{
		{"Threads", "thread count", o.Threads, 1, MaxThreads, has(BenchWake) || has(BenchParallel) || has(BenchRequeue)},
		{"HashThreads", "hash thread count", o.HashThreads, 1, MaxThreads, has(BenchHash)},
		{"Wakes", "wakes per call", o.Wakes, 0, MaxThreads, has(BenchWake)},
		{"Wakers", "waker count", o.Wakers, 1, MaxThreads, has(BenchParallel)},
		{"Requeues", "requeues per call", o.Requeues, 0, MaxThreads, has(BenchRequeue)},
	}
	for _, l := range lists {
		if !l.need {
			continue
		}
		if len(l.v) == 0 {
			return driver.Bad(l.field, "give at least one %s", l.what)
		}
		for _, v := range l.v {
			if err := driver.CheckCount(l.field, l.what, v, l.lo, l.hi); err != nil {
				return err
			}
		}
	}
	if has(BenchParallel) {
		for _, n := range o.Threads {
			for _, m := range o.Wakers {
				if m <= n && n%m != 0 {
					return driver.Bad("Wakers", "%d wakers cannot share %d waiters evenly: each makes one call waking the same number (perf: \"Must be perfectly divisible\")", m, n)
				}
			}
		}
	}
	if err := driver.CheckCount("Runs", "run count", o.Runs, 1, MaxRuns); err != nil {
		return err
	}
	if o.Settle < 0 || o.Settle > MaxSettle {
		return driver.Bad("Settle", "invalid settle %v: must be between 0 and %v", o.Settle, MaxSettle)
	}
	if has(BenchHash) {
		if err := driver.CheckCount("Futexes", "futexes per thread", o.Futexes, 1, MaxFutexes); err != nil {
			return err
		}
		if o.HashTime < time.Millisecond || o.HashTime > MaxHashTime {
			return driver.Bad("HashTime", "invalid hash time %v: must be between 1ms and %v", o.HashTime, MaxHashTime)
		}
		if err := driver.CheckCount("HashRounds", "hash rounds", o.HashRounds, 1, MaxRuns); err != nil {
			return err
		}
	}
	if has(BenchCondvar) {
		if err := driver.CheckCount("Items", "item count", o.Items, 1, MaxItems); err != nil {
			return err
		}
		if err := driver.CheckCount("Capacity", "queue capacity", o.Capacity, 1, MaxCapacity); err != nil {
			return err
		}
		if err := driver.CheckCount("PCRounds", "producer/consumer rounds", o.PCRounds, 1, MaxRuns); err != nil {
			return err
		}
	}
	return nil
}

// rounds is how many rounds (runs) a configuration of bench gets.
func (o Options) rounds(bench string) int {
	switch bench {
	case BenchHash:
		return o.HashRounds
	case BenchCondvar:
		return o.PCRounds
	}
	return o.Runs
}

// cfgSpec is one configuration: a bench of an implementation at N waiters
// with k per call (wake, requeue) or m wakers (wake-parallel).
type cfgSpec struct {
	im    implSpec
	bench string
	n     int // waiters (hash: threads)
	k     int // per call, 0: all (wake, requeue)
	m     int // wakers (wake-parallel)
	group int // configurations of one group run round-interleaved
}

func kName(k int) string {
	if k <= 0 {
		return "all"
	}
	return strconv.Itoa(k)
}

// key is the configuration's key: impl/bench/n=N/...; n first, so that
// configurations of one sweep sort together.
func (c cfgSpec) key(o Options) string {
	base := c.im.name + "/" + c.bench
	switch c.bench {
	case BenchWake:
		return fmt.Sprintf("%s/n=%d/w=%s", base, c.n, kName(c.k))
	case BenchRequeue:
		return fmt.Sprintf("%s/n=%d/q=%s", base, c.n, kName(c.k))
	case BenchParallel:
		return fmt.Sprintf("%s/n=%d/wakers=%d", base, c.n, c.m)
	case BenchHash:
		return fmt.Sprintf("%s/n=%d/futexes=%d", base, c.n, o.Futexes)
	}
	return fmt.Sprintf("%s/capacity=%d/held=%v", base, o.Capacity, o.NotifyHeld)
}

// configs lists the configurations, bench by bench, in --impl order; skipped
// says which chosen implementation lacks a chosen bench or per-call count.
func (o Options) configs(impls []implSpec, benches []string) (cfgs []cfgSpec, skipped []string) {
	// Groups run their configurations' runs (rounds) interleaved, run 1 of
	// each, then run 2, ..., so that a change in the machine's load hits
	// every implementation alike: the waker benches of one N form a group
	// (the claims compare their implementations, per-call counts and
	// benches at one N), each hash thread count one, the producer/consumer
	// one.
	group := 0
	add := func(c cfgSpec) {
		c.group = group
		cfgs = append(cfgs, c)
	}
	for _, n := range o.Threads {
		before := len(cfgs)
		for _, b := range benches {
			switch b {
			case BenchWake, BenchRequeue:
				ks := o.Wakes
				if b == BenchRequeue {
					ks = o.Requeues
				}
				for _, k := range ks {
					if k > n {
						continue // more per call than waiters: the same as all
					}
					for _, im := range impls {
						ok := im.wakeK
						if b == BenchRequeue {
							ok = im.requeueK
						}
						switch {
						case !im.offers(b):
						case !ok(k):
							skipped = append(skipped, fmt.Sprintf("%s %s with %s per call: %s takes one or all at once only", im.name, b, kName(k), im.name))
						default:
							add(cfgSpec{im: im, bench: b, n: n, k: k})
						}
					}
				}
			case BenchParallel:
				for _, m := range o.Wakers {
					for _, im := range impls {
						if im.offers(b) {
							add(cfgSpec{im: im, bench: b, n: n, m: min(m, n)})
						}
					}
				}
			}
		}
		if len(cfgs) > before {
			group++
		}
	}
	if slices.Contains(benches, BenchHash) {
		for _, n := range o.HashThreads {
			before := len(cfgs)
			for _, im := range impls {
				if im.offers(BenchHash) {
					add(cfgSpec{im: im, bench: BenchHash, n: n})
				}
			}
			if len(cfgs) > before {
				group++
			}
		}
	}
	if slices.Contains(benches, BenchCondvar) {
		for _, im := range impls {
			if im.offers(BenchCondvar) {
				add(cfgSpec{im: im, bench: BenchCondvar, n: 2})
			}
		}
	}
	// Two paths of the plan may reach one configuration (its key) or skip
	// one implementation for one reason twice: each once.
	return driver.DistinctBy(cfgs, func(c cfgSpec) string { return c.key(o) }), driver.Distinct(skipped)
}

// Validate checks o without measuring anything; errors are
// *driver.OptionError naming the Options field.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// wakePlan is a validated run: the configurations, and what was left out.
type wakePlan struct {
	o        Options
	impls    []implSpec
	benches  []string
	cfgs     []cfgSpec
	warnings []string
	notes    []string
}

// plan validates o and plans its configurations.
func plan(o Options) (*wakePlan, error) {
	if err := o.validateCounts(); err != nil {
		return nil, err
	}
	benches, _ := o.benches()
	sel, err := catalog().Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	p := &wakePlan{o: o, impls: sel.Items, benches: benches, warnings: sel.Warnings, notes: sel.Notes}
	var skipped []string
	p.cfgs, skipped = o.configs(sel.Items, benches)
	for _, s := range skipped {
		p.notes = append(p.notes, "skipped: "+s)
	}
	if len(p.cfgs) == 0 {
		return nil, driver.Bad("Impls", "nothing to run: no chosen implementation has a chosen bench (%s)", strings.Join(benches, ", "))
	}
	return p, nil
}
