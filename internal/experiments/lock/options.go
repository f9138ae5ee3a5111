package lock

import (
	"runtime"
	"slices"
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

// Options are parkbench lock's options; each field's tags give its flag,
// help and echo key (internal/cli/flags.go).
type Options struct {
	// Impls: names; empty means every implementation available.
	Impls []string `flag:"impl" help:"implementations: a name, a comma list, or all available (names: {ImplNames})"`
	// LotParkers: run lot over each of these parkers too, as impl lot@PARKER.
	LotParkers []string `flag:"lot-parker,empty-ok" opt:"lot-parker,omitempty" help:"also run lot over each of these parkers (comma list), as impl lot@PARKER"`
	// Threads: the thread-count sweep.
	Threads []int `flag:"threads" opt:"threads" help:"thread counts, comma list, each 1..{MaxThreads} (default here 1,2,4,NumCPU,2xNumCPU)"`
	// WorkIn and WorkBetween: the work inside the lock and between
	// acquisitions, in calibrated time.
	WorkIn      []time.Duration `flag:"work-in" opt:"work-in" help:"work inside the lock, comma list of durations 0..{MaxWork}"`
	WorkBetween []time.Duration `flag:"work-between" opt:"work-between" help:"work between acquisitions, comma list of durations 0..{MaxWork}"`
	// Locks: 1, or K locks each acquisition picks among at random.
	Locks []int `flag:"locks" opt:"locks" help:"number of locks, comma list, each 1..{MaxLocks}: with K > 1 each acquisition picks one of K at random (lock-bench)"`
	// Participants: threads (goroutines locked to their threads, the default),
	// goroutines (plain goroutines), or both (goroutines.go).
	Participants []string `flag:"participants" opt:"participants,empty=threads" help:"what runs the loops: threads (goroutines locked to their threads), goroutines (plain), a comma list, or all"`
	// GOMAXPROCS: one configuration per value; empty: the run's (runenv:
	// threads + 2, at least the CPUs).
	GOMAXPROCS []int `flag:"gomaxprocs" opt:"gomaxprocs" placeholder:"N[,N...]" help:"GOMAXPROCS, N[,N...] (1 to 256): one configuration per value (default: threads + 2, at least the CPUs)"`
	// Duration of one timed run; Repeats runs per configuration, the figures
	// are their median.
	Duration time.Duration `flag:"duration" opt:"duration" help:"length of one timed run"`
	Repeats  int           `flag:"repeats" opt:"repeats" help:"timed runs per configuration; figures are their median"`
	// HoldSleep > 0 is WebKit's LockFairnessTest: sleep that long while
	// holding the lock instead of the work-in.
	HoldSleep time.Duration `flag:"hold-sleep" opt:"hold-sleep,omitempty" help:"WebKit LockFairnessTest mode: sleep this long while holding the lock (0: off)"`
	// Skew is golang/go#13086's pattern with two threads: one holds the lock
	// while sleeping SkewSleep and relocks at once, the other sleeps SkewSleep
	// and then locks briefly.
	Skew      bool `flag:"lockskew" help:"golang/go#13086's lockskew pattern (two threads; 100 µs sleeps)"`
	SkewSleep time.Duration
}

// FlagVars are the {Name}s of its help tags (internal/cli/flags.go).
func (Options) FlagVars() map[string]any {
	return map[string]any{
		"MaxThreads": MaxThreads,
		"MaxWork":    MaxWork,
		"MaxLocks":   MaxLocks,
	}
}

// RwOptions are parkbench rwlock's options: parking_lot's rwlock
// benchmark (benchmark/src/bin/rwlock.rs); the tags as Options'.
type RwOptions struct {
	// Impls: names; empty means every implementation available.
	Impls []string `flag:"impl" help:"implementations: a name, a comma list, or all available (names: {ImplNames})"`
	// Readers and Writers: the thread counts of each class, swept, on one
	// rwlock.
	Readers []int `flag:"readers" opt:"readers" help:"reader thread counts, comma list, each 0..{MaxThreads}"`
	Writers []int `flag:"writers" opt:"writers" help:"writer thread counts, comma list, each 0..{MaxThreads}"`
	// WorkIn and WorkBetween: the work inside the lock and between
	// acquisitions, for both classes, as rwlock.rs.
	WorkIn      []time.Duration `flag:"work-in" opt:"work-in" help:"work inside the lock, comma list of durations 0..{MaxWork}"`
	WorkBetween []time.Duration `flag:"work-between" opt:"work-between" help:"work between acquisitions, comma list of durations 0..{MaxWork}"`
	// Duration of one timed run; Repeats runs per configuration.
	Duration time.Duration `flag:"duration" opt:"duration" help:"length of one timed run"`
	Repeats  int           `flag:"repeats" opt:"repeats" help:"timed runs per configuration; figures are their median"`
}

// FlagVars are Options': the package's limits, as its help tags name them.
func (RwOptions) FlagVars() map[string]any { return Options{}.FlagVars() }

// DefaultThreads is 1, 2, 4, NumCPU, 2 x NumCPU, deduplicated and sorted.
func DefaultThreads() []int {
	n := runtime.NumCPU()
	return driver.SortedDistinct([]int{1, 2, 4, n, 2 * n})
}

// DefaultOptions: the thread sweep, work 0 and 200 ns in and between, one
// lock, 1 s per run, 3 repeats.
func DefaultOptions() Options {
	return Options{
		Impls:       []string{driver.All},
		Threads:     DefaultThreads(),
		WorkIn:      []time.Duration{0, 200 * time.Nanosecond},
		WorkBetween: []time.Duration{0, 200 * time.Nanosecond},
		Locks:       []int{1},
		Duration:    time.Second,
		Repeats:     3,
		SkewSleep:   100 * time.Microsecond,
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
	return o
}

// DefaultRwOptions: 1, NumCPU and 2 x NumCPU readers against 1 and 2
// writers, with the mutex benchmark's work, duration and repeats.
func DefaultRwOptions() RwOptions {
	d := DefaultOptions()
	return RwOptions{
		Impls:       []string{driver.All},
		Readers:     driver.SortedDistinct([]int{1, runtime.NumCPU(), 2 * runtime.NumCPU()}),
		Writers:     []int{1, 2},
		WorkIn:      d.WorkIn,
		WorkBetween: d.WorkBetween,
		Duration:    d.Duration,
		Repeats:     d.Repeats,
	}
}

// QuickRwOptions is a short --rwlock run (about a second with every
// implementation): NumCPU readers and one writer, no work, 100 ms x 2.
func QuickRwOptions() RwOptions {
	q := QuickOptions()
	return RwOptions{
		Impls:       q.Impls,
		Readers:     []int{runtime.NumCPU()},
		Writers:     []int{1},
		WorkIn:      q.WorkIn,
		WorkBetween: q.WorkBetween,
		Duration:    q.Duration,
		Repeats:     q.Repeats,
	}
}

// Validate checks the options without measuring; errors are *OptionError
// naming the Options field and what is allowed.
func (o Options) Validate() error { return driver.Check(plan(o)) }

// mutexPlan is a validated lock run: the implementations chosen, and
// lot@PARKER for each LotParkers names.
type mutexPlan struct {
	o Options
	driver.Selection[impl]
}

func plan(o Options) (*mutexPlan, error) {
	if err := driver.CheckCounts("Threads", "thread count", o.Threads, 1, MaxThreads); err != nil {
		return nil, err
	}
	if err := checkWork(o.WorkIn, o.WorkBetween); err != nil {
		return nil, err
	}
	if err := driver.CheckCounts("Locks", "lock count", o.Locks, 1, MaxLocks); err != nil {
		return nil, err
	}
	if err := checkRun(o.Duration, o.Repeats); err != nil {
		return nil, err
	}
	if o.HoldSleep < 0 || o.HoldSleep > MaxHold {
		return nil, driver.Bad("HoldSleep", "invalid hold %v: must be between 0 (off) and %v", o.HoldSleep, MaxHold)
	}
	if o.Skew {
		if o.HoldSleep > 0 {
			return nil, driver.Bad("Skew", "the lockskew pattern and a hold sleep are two different patterns; choose one")
		}
		if o.SkewSleep <= 0 || o.SkewSleep > MaxHold {
			return nil, driver.Bad("SkewSleep", "invalid sleep %v: must be above 0 and at most %v", o.SkewSleep, MaxHold)
		}
	}
	if err := driver.CheckProcs("GOMAXPROCS", o.GOMAXPROCS); err != nil {
		return nil, err
	}
	sel, err := resolveParticipants(o)
	if err != nil {
		return nil, err
	}
	p := &mutexPlan{o: o, Selection: sel}
	for _, name := range o.LotParkers {
		im, err := lotOverParker(name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(p.Items, func(x impl) bool { return x.name == im.name }) {
			return nil, driver.Bad("LotParkers", "parker %q is named twice; each is one configuration, give it once", name)
		}
		p.Items = append(p.Items, im)
	}
	return p, nil
}

// Validate checks the --rwlock options without measuring (errors as
// Options.Validate).
func (o RwOptions) Validate() error { return driver.Check(planRw(o)) }

// rwPlan is a validated --rwlock run.
type rwPlan struct {
	o RwOptions
	driver.Selection[impl]
}

func planRw(o RwOptions) (*rwPlan, error) {
	if err := driver.CheckCounts("Readers", "thread count", o.Readers, 0, MaxThreads); err != nil {
		return nil, err
	}
	if err := driver.CheckCounts("Writers", "thread count", o.Writers, 0, MaxThreads); err != nil {
		return nil, err
	}
	if slices.Max(o.Readers)+slices.Max(o.Writers) == 0 {
		return nil, driver.Bad("Writers", "give at least one reader or writer")
	}
	if err := checkWork(o.WorkIn, o.WorkBetween); err != nil {
		return nil, err
	}
	if err := checkRun(o.Duration, o.Repeats); err != nil {
		return nil, err
	}
	sel, err := rwCatalog().Resolve("Impls", o.Impls)
	if err != nil {
		return nil, err
	}
	return &rwPlan{o: o, Selection: sel}, nil
}

// checkWork checks the work inside and between, in both benchmarks.
func checkWork(in, between []time.Duration) error {
	if err := driver.CheckDurations("WorkIn", "work", in, 0, MaxWork); err != nil {
		return err
	}
	return driver.CheckDurations("WorkBetween", "work", between, 0, MaxWork)
}

// checkRun checks the length of a timed run and the repeats.
func checkRun(duration time.Duration, repeats int) error {
	if duration <= 0 || duration > MaxDuration {
		return driver.Bad("Duration", "invalid duration %v: must be above 0 and at most %v", duration, MaxDuration)
	}
	return driver.CheckCount("Repeats", "repeats", repeats, 1, MaxRepeats)
}
