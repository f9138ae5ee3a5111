//go:build parkchaos

package chaos

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Enabled reports whether fault injection is compiled in.
const Enabled = true

// Fault kinds, in the order of PARKCHAOS_MIX.
const (
	kindGosched = iota // runtime.Gosched: give the P to another goroutine
	kindYield          // sched_yield(2): give the CPU to another thread
	kindSleep          // a short sleep, SleepMin..SleepMax
	numKinds
)

var kindNames = [numKinds]string{"gosched", "yield", "sleep"}

// config is read once from the environment (see loadConfig) and may be
// replaced by tests with setConfig.
type config struct {
	// threshold: a Point injects when a uniform uint64 is below it
	// (rate * 2^64).
	threshold uint64
	// cum are cumulative weights of the kinds; a fault's kind is the first
	// index with r < cum[i], r uniform in [0, cum[numKinds-1]).
	cum      [numKinds]uint64
	sleepMin time.Duration
	sleepMax time.Duration
	rate     float64
	mix      [numKinds]uint64
}

var cfg atomic.Pointer[config]

// Defaults: one Point in ten injects; gosched and yield twice as often as a
// sleep; sleeps of 1 to 50 µs.
const (
	defaultRate     = 0.1
	defaultSleepMin = time.Microsecond
	defaultSleepMax = 50 * time.Microsecond
)

var defaultMix = [numKinds]uint64{2, 2, 1}

func init() {
	c, err := loadConfig(os.Getenv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "parkchaos: %v; using the defaults\n", err)
		c, _ = newConfig(defaultRate, defaultMix, defaultSleepMin, defaultSleepMax)
	}
	cfg.Store(c)
}

// loadConfig reads
//
//	PARKCHAOS_RATE   probability that a Point injects a fault, 0..1 (default 0.1)
//	PARKCHAOS_MIX    weights gosched:yield:sleep (default 2:2:1)
//	PARKCHAOS_SLEEP  longest sleep, a Go duration (default 50µs; the shortest is 1µs)
func loadConfig(getenv func(string) string) (*config, error) {
	rate := defaultRate
	mix := defaultMix
	sleepMax := defaultSleepMax
	if s := getenv("PARKCHAOS_RATE"); s != "" {
		r, err := strconv.ParseFloat(s, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("PARKCHAOS_RATE=%q: want a probability between 0 and 1", s)
		}
		rate = r
	}
	if s := getenv("PARKCHAOS_MIX"); s != "" {
		parts := strings.Split(s, ":")
		if len(parts) != numKinds {
			return nil, fmt.Errorf("PARKCHAOS_MIX=%q: want gosched:yield:sleep weights, e.g. 2:2:1", s)
		}
		for i, p := range parts {
			w, err := strconv.ParseUint(strings.TrimSpace(p), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("PARKCHAOS_MIX=%q: %q is not a weight", s, p)
			}
			mix[i] = w
		}
	}
	if s := getenv("PARKCHAOS_SLEEP"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil || d < defaultSleepMin {
			return nil, fmt.Errorf("PARKCHAOS_SLEEP=%q: want a duration of at least 1µs", s)
		}
		sleepMax = d
	}
	return newConfig(rate, mix, defaultSleepMin, sleepMax)
}

func newConfig(rate float64, mix [numKinds]uint64, sleepMin, sleepMax time.Duration) (*config, error) {
	c := &config{rate: rate, mix: mix, sleepMin: sleepMin, sleepMax: sleepMax}
	switch {
	case rate >= 1:
		c.threshold = ^uint64(0)
	case rate > 0:
		c.threshold = uint64(rate * (1 << 63) * 2)
	}
	var sum uint64
	for i, w := range mix {
		sum += w
		c.cum[i] = sum
	}
	if sum == 0 {
		if rate > 0 {
			return nil, fmt.Errorf("PARKCHAOS_MIX: every weight is 0")
		}
		c.cum[numKinds-1] = 1
	}
	if sleepMax < sleepMin {
		sleepMax = sleepMin
	}
	c.sleepMax = sleepMax
	return c, nil
}

// setConfig replaces the configuration (tests) and returns the old one.
func setConfig(c *config) *config { return cfg.Swap(c) }

// point counts one Point name.
type point struct {
	calls    atomic.Uint64
	injected [numKinds]atomic.Uint64
}

var (
	points   sync.Map // string -> *point
	injected atomic.Uint64
)

func lookup(name string) *point {
	if p, ok := points.Load(name); ok {
		return p.(*point)
	}
	p, _ := points.LoadOrStore(name, new(point))
	return p.(*point)
}

// Point marks a critical point. With probability PARKCHAOS_RATE it injects
// a runtime.Gosched, a sched_yield or a short sleep, chosen by
// PARKCHAOS_MIX, and counts it under name.
func Point(name string) {
	c := cfg.Load()
	p := lookup(name)
	p.calls.Add(1)
	// math/rand/v2's top-level functions use the runtime's per-thread
	// generator: no lock, no shared cache line.
	if c.threshold == 0 || rand.Uint64() >= c.threshold {
		return
	}
	k := 0
	r := rand.Uint64N(c.cum[numKinds-1])
	for k < numKinds-1 && r >= c.cum[k] {
		k++
	}
	p.injected[k].Add(1)
	injected.Add(1)
	switch k {
	case kindGosched:
		runtime.Gosched()
	case kindYield:
		osYield()
	case kindSleep:
		d := c.sleepMin
		if span := c.sleepMax - c.sleepMin; span > 0 {
			d += time.Duration(rand.Int64N(int64(span) + 1))
		}
		sleep(d)
	}
}

// sleep parks the goroutine (and a locked OS thread with it) for d: to the
// protocol around the Point it looks like a thread preempted for d.
func sleep(d time.Duration) { time.Sleep(d) }

// Injected returns how many faults were injected, over all points.
func Injected() uint64 { return injected.Load() }

// Counts returns the number of faults injected per point name (points that
// were reached but never injected are listed with 0).
func Counts() map[string]uint64 {
	out := map[string]uint64{}
	points.Range(func(k, v any) bool {
		p := v.(*point)
		var n uint64
		for i := range p.injected {
			n += p.injected[i].Load()
		}
		out[k.(string)] = n
		return true
	})
	return out
}

// Calls returns how many times each point was reached.
func Calls() map[string]uint64 {
	out := map[string]uint64{}
	points.Range(func(k, v any) bool {
		out[k.(string)] = v.(*point).calls.Load()
		return true
	})
	return out
}

// Summary is one line per point: name, calls, faults by kind, sorted by name.
func Summary() string {
	var names []string
	points.Range(func(k, _ any) bool {
		names = append(names, k.(string))
		return true
	})
	sort.Strings(names)
	c := cfg.Load()
	var b strings.Builder
	fmt.Fprintf(&b, "parkchaos: rate=%g mix=%d:%d:%d sleep=%v..%v injected=%d\n",
		c.rate, c.mix[0], c.mix[1], c.mix[2], c.sleepMin, c.sleepMax, Injected())
	for _, n := range names {
		p := lookup(n)
		fmt.Fprintf(&b, "  %-40s calls=%d", n, p.calls.Load())
		for i := range p.injected {
			fmt.Fprintf(&b, " %s=%d", kindNames[i], p.injected[i].Load())
		}
		b.WriteByte('\n')
	}
	return b.String()
}
