package selfwake

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

// TestRunSelfwake runs every implementation for a few samples and checks
// the structure: a syscall reference row, ns per pair present, histograms
// decode, the claim is there.
func TestRunSelfwake(t *testing.T) {
	defer func(old func([2]int) *results.Probe) { measureProbe = old }(measureProbe)
	measureProbe = cheapProbe
	o := Options{Impls: []string{latency.ImplAll}, Pairs: 10, Samples: 20, Rounds: 2}
	exp := drivertest.Run(t, RunSelfwake, o)
	if len(exp.Configs) < 3 || exp.Configs[0].Impl != ImplSyscall {
		t.Fatalf("%d configs, first %q", len(exp.Configs), exp.Configs[0].Impl)
	}
	for _, c := range exp.Configs {
		if len(c.Rounds) != 2 {
			t.Fatalf("%s: %d rounds", c.Key, len(c.Rounds))
		}
		// A sample of 10 pairs of the cheapest mechanisms (c-spin: about
		// 13 ns) can be under the clock's step (about 20 ns on Linux):
		// then its time figures are refused, and the warning says so.
		refused := false
		for _, w := range c.Warnings {
			refused = refused || strings.HasPrefix(w, driver.BelowClockPrefix)
		}
		for _, m := range []string{results.MNsPerPair, results.MMin, results.MP99, MCtxSwPerPair, MSyscallNs} {
			if _, ok := c.Summary[m]; !ok && !(refused && slices.Contains(timeFigures, m)) {
				t.Errorf("%s: %s missing (warnings %q)", c.Key, m, c.Warnings)
			}
		}
		h, err := hdrhistogram.Decode([]byte(c.Rounds[0].Histogram))
		if err != nil || h.TotalCount() != 20 {
			t.Errorf("%s: histogram %v, %v", c.Key, err, h)
		}
	}
	if len(exp.Claims) != 1 || exp.Claims[0].ID != ClaimE12SelfAtOnc {
		t.Errorf("claims %+v", exp.Claims)
	}
	// The cross claim evaluates from these and a latency run. The windows'
	// foreign shares go: on a machine busy with other processes the claim
	// kit leaves every figure out (its own test), and this test is of the
	// two runs' figures meeting, not of the machine.
	sleeper := latency.FirstAvailable("futex", "pthread", "waitonaddress", "keyedevent")
	if sleeper == "" {
		t.Skip("no sleeping thread parker runs here")
	}
	lo := latency.DefaultLatencyOptions()
	lo.Impls, lo.Placements, lo.Warmup, lo.Iterations, lo.Rounds = []string{sleeper}, []string{driver.Unpinned}, 10, 50, 2
	l := drivertest.Run(t, latency.RunLatency, lo)
	for _, c := range append(slices.Clone(l.Configs), exp.Configs...) {
		c.Foreign = nil
	}
	if c := latency.CrossClaims(l, exp); c[0].Verdict == results.NotEvaluated {
		t.Errorf("cross claim not evaluated: %s", c[0].Evidence)
	}
}

func TestSelfwakeBadOptions(t *testing.T) {
	for name, o := range map[string]Options{
		"zero pairs":   {Impls: []string{"futex"}, Pairs: 0, Samples: 1, Rounds: 1},
		"zero samples": {Impls: []string{"futex"}, Pairs: 1, Samples: 0, Rounds: 1},
		"unknown":      {Impls: []string{"nope"}, Pairs: 1, Samples: 1, Rounds: 1},
	} {
		drivertest.Refused(t, name, RunSelfwake, o)
	}
}

// TestSelfwakeHarnessNotes: the fifth note comes exactly when the empty
// pair costs more than a fifth of lot's pair above it; the note on what Go
// adds beside parking_lot_core comes last, with any lot row.
func TestSelfwakeHarnessNotes(t *testing.T) {
	lotRow := func(harness, over float64) []*results.Config {
		return []*results.Config{
			{Key: "std", Impl: "std", Summary: map[string]float64{results.MNsPerPair: 5}},
			{Key: latency.ImplLot, Impl: latency.ImplLot, Summary: map[string]float64{results.MNsPerPair: harness + over, MHarnessNs: harness, MOverHarness: over}},
		}
	}
	goNote := func(n []string) bool { return strings.Contains(n[len(n)-1], "validate guard") }
	if n := selfwakeHarnessNotes(lotRow(3, 12)); len(n) != 3 || !strings.Contains(n[1], "more than a fifth") || !goNote(n) {
		t.Errorf("3 ns floor, 12 ns above: want the fifth note, got %q", n)
	}
	if n := selfwakeHarnessNotes(lotRow(2, 12)); len(n) != 2 || !strings.Contains(n[0], "2.00 ns") || !goNote(n) {
		t.Errorf("2 ns floor, 12 ns above: want the floor note and Go's, got %q", n)
	}
	if n := selfwakeHarnessNotes(lotRow(2, 12)[:1]); n != nil {
		t.Errorf("no lot row: want no note, got %q", n)
	}
}

// TestSelfwakeModeNotes: the note comes exactly when lot's slowest round is
// more than 1.2 times its fastest.
func TestSelfwakeModeNotes(t *testing.T) {
	rows := func(rounds ...float64) []*results.Config {
		lot := &results.Config{Key: latency.ImplLot, Impl: latency.ImplLot}
		for _, v := range rounds {
			lot.Rounds = append(lot.Rounds, results.Round{Metrics: map[string]float64{results.MNsPerPair: v}})
		}
		return []*results.Config{{Key: "std", Impl: "std", Rounds: []results.Round{{Metrics: map[string]float64{results.MNsPerPair: 5}}, {Metrics: map[string]float64{results.MNsPerPair: 50}}}}, lot}
	}
	if n := selfwakeModeNotes(rows(11.6, 14.8, 11.7)); len(n) != 1 || !strings.Contains(n[0], "11.60 to 14.80") {
		t.Errorf("rounds 11.6, 14.8, 11.7: want the mode note, got %q", n)
	}
	if n := selfwakeModeNotes(rows(11.6, 13.9, 12.0)); n != nil {
		t.Errorf("rounds within x1.2: want no note, got %q", n)
	}
	if n := selfwakeModeNotes(rows(14.8)); n != nil {
		t.Errorf("one round: want no note, got %q", n)
	}
}

// cheapProbe stands in for probe.Measure in structure tests.
func cheapProbe(cpus [2]int) *results.Probe {
	return &results.Probe{SpinOneWayNs: 1, SyscallNs: 1, CPUs: cpus}
}

// TestSelfwakeAllocFree: the selfwake loops allocate nothing at all (one
// thread, nothing blocks).
func TestSelfwakeAllocFree(t *testing.T) {
	if chaos.Enabled {
		t.Skip("allocation counts are not meaningful with fault injection compiled in")
	}
	for _, name := range []string{parkers.NameFutex, parkers.NameStd, parkers.NameCrossbeam, latency.ImplLot} {
		var m selfMech
		if name == latency.ImplLot {
			m = &selfLot{}
		} else {
			b, err := parkers.Lookup(name)
			if err != nil {
				continue
			}
			if b.Kind != parkers.KindThread && b.NewToken != nil {
				m = &selfToken{selfParker[parkers.TokenParker]{new: b.NewToken}}
			} else {
				m = &selfThread{selfParker[parkers.ThreadParker]{new: b.NewThread}}
			}
		}
		runtime.LockOSThread()
		m.setup()
		m.pairs(100)
		if a := testing.AllocsPerRun(20, func() { m.pairs(100) }); a != 0 {
			t.Errorf("%s: %v allocations per 100 pairs", name, a)
		}
		runtime.UnlockOSThread()
	}
}

// selfwake on goroutines: the goroutine-level rows and the syscall row
// run, the thread parkers are refused by name and skipped under all.
func TestSelfwakeGoroutinesPlan(t *testing.T) {
	o := QuickOptions()
	o.Participants = []string{driver.Goroutines}
	p, err := planSelfwake(o)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, im := range p.impls {
		if !im.goroutines {
			t.Errorf("%s planned on threads", im.Name())
		}
		names = append(names, im.Name())
	}
	for _, want := range []string{ImplSyscall, "chan", "cond", latency.ImplLot} {
		if !strings.Contains(","+strings.Join(names, ",")+",", ","+want+",") {
			t.Errorf("goroutines, all: %v lacks %s", names, want)
		}
	}
	o.Impls = []string{"spin"}
	if _, err := planSelfwake(o); err == nil || !strings.Contains(err.Error(), "goroutines as participants") {
		t.Errorf("spin on goroutines: %v, want refused with the reason", err)
	}
}

// TestEchoParticipants: selfwake records its participants with the default
// written out (Echo's empty=threads is driver.Threads).
func TestEchoParticipants(t *testing.T) {
	if got := driver.Echo(DefaultOptions())["participants"]; got != driver.Threads {
		t.Errorf("selfwake's default participants echo %q, want %q", got, driver.Threads)
	}
}
