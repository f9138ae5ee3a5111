// Package lock is parkbench lock: what a contended lock costs a program.
// N threads (goroutines locked to their OS threads, or C threads for the
// floor) start together and loop { lock; work-in; unlock; work-between }
// for a fixed time, exactly as parking_lot's benchmark/src/bin/mutex.rs
// (run_benchmark); from the same run come fairness (Jain's index, min/max
// ratio, sampled waits) and CPU cost (cores busy, CPU per acquisition), for
// every implementation side by side. See docs/lock.md.
package lock

import (
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Bounds of the options.
const (
	MaxThreads  = 1024
	MaxLocks    = 4096 // lock-bench's axis goes to a few thousand locks
	MaxRepeats  = 1000
	MaxDuration = time.Minute
	MaxWork     = time.Millisecond
	MaxHold     = 100 * time.Millisecond
	// SampleEvery: one acquisition in SampleEvery has its wait timed.
	SampleEvery = 64
)

// Options are parkbench lock's options. The field comments give the flag.
type Options struct {
	// Impls (--impl): names; empty means every implementation available.
	Impls []string
	// LotParkers (--lot-parker): run lot over each of these parkers too,
	// as impl lot@PARKER.
	LotParkers []string
	// Threads (--threads): the thread-count sweep.
	Threads []int
	// WorkIn (--work-in) and WorkBetween (--work-between): the work inside
	// the lock and between acquisitions, in calibrated time.
	WorkIn, WorkBetween []time.Duration
	// Locks (--locks): 1, or K locks each acquisition picks among at random.
	Locks []int
	// Duration (--duration) of one timed run; Repeats (--repeats) runs per
	// configuration, the figures are their median.
	Duration time.Duration
	Repeats  int
	// HoldSleep (--hold-sleep) > 0 is WebKit's LockFairnessTest: sleep
	// that long while holding the lock instead of the work-in.
	HoldSleep time.Duration
	// Skew (--lockskew) is golang/go#13086's pattern with two threads:
	// one holds the lock while sleeping SkewSleep and relocks at once, the
	// other sleeps SkewSleep and then locks briefly.
	Skew      bool
	SkewSleep time.Duration
	// RwLock (--rwlock) runs parking_lot's rwlock benchmark instead
	// (benchmark/src/bin/rwlock.rs): Writers (--writers) and Readers
	// (--readers) thread counts, swept, on one rwlock; WorkIn and
	// WorkBetween apply to both classes, as in rwlock.rs; Threads, Locks,
	// HoldSleep, Skew and LotParkers do not apply.
	RwLock           bool
	Readers, Writers []int
}

// DefaultThreads is 1, 2, 4, NumCPU, 2 x NumCPU, deduplicated and sorted.
func DefaultThreads() []int {
	n := runtime.NumCPU()
	t := []int{1, 2, 4, n, 2 * n}
	slices.Sort(t)
	return slices.Compact(t)
}

// DefaultOptions: the thread sweep, work 0 and 200 ns in and between, one
// lock, 1 s per run, 3 repeats.
func DefaultOptions() Options {
	return Options{
		Threads:     DefaultThreads(),
		WorkIn:      []time.Duration{0, 200 * time.Nanosecond},
		WorkBetween: []time.Duration{0, 200 * time.Nanosecond},
		Locks:       []int{1},
		Duration:    time.Second,
		Repeats:     3,
		SkewSleep:   100 * time.Microsecond,
		Readers:     dedupSorted([]int{1, runtime.NumCPU(), 2 * runtime.NumCPU()}),
		Writers:     []int{1, 2},
	}
}

// QuickOptions is a short run (under 10 s with every implementation): 2
// and 2 x NumCPU threads, zero work, 100 ms per run, 2 repeats.
func QuickOptions() Options {
	o := DefaultOptions()
	o.Threads = []int{2, 2 * runtime.NumCPU()}
	o.WorkIn = []time.Duration{0}
	o.WorkBetween = []time.Duration{0}
	o.Duration = 100 * time.Millisecond
	o.Repeats = 2
	o.Readers, o.Writers = []int{runtime.NumCPU()}, []int{1}
	return o
}

// QuickRwOptions is a short --rwlock run (about a second with every
// implementation): NumCPU readers and one writer, no work, 100 ms x 2.
func QuickRwOptions() Options {
	o := QuickOptions()
	o.RwLock = true
	return o
}

func dedupSorted(v []int) []int {
	slices.Sort(v)
	return slices.Compact(v)
}

// Validate checks the options without measuring; errors are *OptionError
// naming the Options field and what is allowed.
func (o Options) Validate() error {
	if len(o.Threads) == 0 {
		return driver.Bad("Threads", "give at least one thread count")
	}
	for _, n := range o.Threads {
		if n < 1 || n > MaxThreads {
			return driver.Bad("Threads", "invalid thread count %d: must be between 1 and %d", n, MaxThreads)
		}
	}
	for _, w := range []struct {
		field string
		v     []time.Duration
	}{{"WorkIn", o.WorkIn}, {"WorkBetween", o.WorkBetween}} {
		if len(w.v) == 0 {
			return driver.Bad(w.field, "give at least one duration (0 for none)")
		}
		for _, d := range w.v {
			if d < 0 || d > MaxWork {
				return driver.Bad(w.field, "invalid work %v: must be between 0 and %v", d, MaxWork)
			}
		}
	}
	if len(o.Locks) == 0 {
		return driver.Bad("Locks", "give at least one lock count")
	}
	for _, k := range o.Locks {
		if k < 1 || k > MaxLocks {
			return driver.Bad("Locks", "invalid lock count %d: must be between 1 and %d", k, MaxLocks)
		}
	}
	if o.Duration <= 0 || o.Duration > MaxDuration {
		return driver.Bad("Duration", "invalid duration %v: must be above 0 and at most %v", o.Duration, MaxDuration)
	}
	if o.Repeats < 1 || o.Repeats > MaxRepeats {
		return driver.Bad("Repeats", "invalid repeats %d: must be between 1 and %d", o.Repeats, MaxRepeats)
	}
	if o.HoldSleep < 0 || o.HoldSleep > MaxHold {
		return driver.Bad("HoldSleep", "invalid hold %v: must be between 0 (off) and %v", o.HoldSleep, MaxHold)
	}
	if o.Skew {
		if o.HoldSleep > 0 {
			return driver.Bad("Skew", "the lockskew pattern and a hold sleep are two different patterns; choose one")
		}
		if o.SkewSleep <= 0 || o.SkewSleep > MaxHold {
			return driver.Bad("SkewSleep", "invalid sleep %v: must be above 0 and at most %v", o.SkewSleep, MaxHold)
		}
	}
	if o.RwLock {
		if err := o.validateRw(); err != nil {
			return err
		}
	}
	_, _, err := o.resolve()
	return err
}

// resolve turns Impls and LotParkers into implementations. An explicit
// unknown or unavailable name is an *OptionError; with no names, the
// unavailable ones are skipped with a warning.
func (o Options) resolve() (impls []impl, warnings []string, err error) {
	all := allImpls()
	if o.RwLock {
		all = allRwImpls()
	}
	byName := map[string]impl{}
	var names []string
	for _, im := range all {
		byName[im.name] = im
		names = append(names, im.name)
	}
	seen := map[string]bool{}
	add := func(im impl) {
		if !seen[im.name] {
			seen[im.name] = true
			impls = append(impls, im)
		}
	}
	want := o.Impls
	if len(want) == 0 || slices.Contains(want, "all") {
		for _, im := range all {
			if im.why != "" {
				warnings = append(warnings, im.name+" skipped: "+im.why)
				continue
			}
			add(im)
		}
	}
	for _, n := range want {
		if n == "all" {
			continue
		}
		im, ok := byName[n]
		if !ok {
			return nil, nil, driver.Bad("Impls", "unknown implementation %q; valid names: %s, or all", n, strings.Join(names, ", "))
		}
		if im.why != "" {
			return nil, nil, driver.Bad("Impls", "implementation %q is not available here: %s", n, im.why)
		}
		add(im)
	}
	for _, p := range o.LotParkers {
		im, err := lotOverParker(p)
		if err != nil {
			return nil, nil, err
		}
		add(im)
	}
	if len(impls) == 0 {
		return nil, nil, driver.Bad("Impls", "no implementation is available here")
	}
	return impls, warnings, nil
}
