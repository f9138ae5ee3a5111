package latency

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/driver/drivertest"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// cheapProbe stands in for probe.Measure in structure tests.
func cheapProbe(cpus [2]int) *results.Probe {
	return &results.Probe{SpinOneWayNs: 1, SyscallNs: 1, CPUs: cpus}
}

func tinyLatency(impls ...string) LatencyOptions {
	o := DefaultLatencyOptions()
	o.Impls = impls
	o.Placements = []string{driver.Unpinned}
	o.Warmup = 10
	o.Iterations = 50
	o.Rounds = 2
	return o
}

// TestRunLatencyStructure runs spin and futex for a few round trips and
// checks the shape of the result: every round has a decodable histogram
// with 2 samples per round trip, the metrics are present, the summary is
// there, the claims are evaluated. No timing thresholds.
func TestRunLatencyStructure(t *testing.T) {
	o := tinyLatency("spin", sleeper(t))
	exp := drivertest.Run(t, RunLatency, o)
	if exp.Name != "latency" || len(exp.Configs) != 2 {
		t.Fatalf("got %q with %d configs", exp.Name, len(exp.Configs))
	}
	for _, c := range exp.Configs {
		if c.Key != c.Impl+"/"+driver.Unpinned {
			t.Errorf("key %q", c.Key)
		}
		if c.Probe == nil || c.Foreign == nil {
			t.Errorf("%s: probe or foreign missing", c.Key)
		}
		if len(c.Rounds) != o.Rounds {
			t.Fatalf("%s: %d rounds", c.Key, len(c.Rounds))
		}
		for _, r := range c.Rounds {
			h, err := hdrhistogram.Decode([]byte(r.Histogram))
			if err != nil {
				t.Fatalf("%s: histogram: %v", c.Key, err)
			}
			if h.TotalCount() != int64(2*o.Iterations) {
				t.Errorf("%s: histogram has %d samples, want %d", c.Key, h.TotalCount(), 2*o.Iterations)
			}
			want := []string{results.MMin, results.MMedian, results.MP99, results.MP999, results.MMax, results.MSamples,
				results.MNoSleep, MAllocsPerRT, MSameCPU}
			if _, err := osthread.ThreadUsage(); err == nil {
				// Context switches: where the OS counts them per thread.
				want = append(want, results.MCtxSwSelf, results.MCtxSwThread)
			}
			for _, m := range want {
				if _, ok := r.Metrics[m]; !ok {
					t.Errorf("%s: metric %s missing", c.Key, m)
				}
			}
			if r.Metrics[results.MMin] > r.Metrics[results.MMedian] || r.Metrics[results.MMedian] > r.Metrics[results.MMax] {
				t.Errorf("%s: min/median/max out of order: %v", c.Key, r.Metrics)
			}
		}
		if _, ok := c.Summary[results.MMedian]; !ok {
			t.Errorf("%s: no summary", c.Key)
		}
	}
	if len(exp.Claims) == 0 {
		t.Error("no claims")
	}
	// The traced round's counts are in the summary when asked for, and
	// each of its parts' in its round (one part per round).
	for _, c := range exp.Configs {
		for _, m := range []string{schedacct.MSchedSteals, schedacct.MSchedLostP, schedacct.MSchedPreempts, schedacct.MSchedGosched} {
			if _, ok := c.Summary[m]; ok != o.SchedCounts {
				t.Errorf("%s: metric %s present %v, want %v", c.Key, m, ok, o.SchedCounts)
			}
			for i, r := range c.Rounds {
				if _, ok := r.Metrics[m]; ok != o.SchedCounts {
					t.Errorf("%s round %d: metric %s present %v, want %v (the traced round's part %d)", c.Key, i+1, m, ok, o.SchedCounts, i+1)
				}
			}
		}
		if g := c.Summary[schedacct.MSchedGosched]; o.SchedCounts && len(c.Rounds) == 2 {
			// The summary is the whole traced round: the parts' mean
			// (equal parts of its round trips).
			mean := (c.Rounds[0].Metrics[schedacct.MSchedGosched] + c.Rounds[1].Metrics[schedacct.MSchedGosched]) / 2
			if math.Abs(g-mean) > 1e-9*max(1, g) {
				t.Errorf("%s: summary Gosched/rt %v, want the parts' mean %v", c.Key, g, mean)
			}
		}
	}
	for _, k := range []string{"impls", "placements", "warmup", "iterations", "rounds", "gaps", "lot_parker"} {
		if _, ok := exp.Options[k]; !ok {
			t.Errorf("option %s not recorded", k)
		}
	}
	if exp.Runtime.GOMAXPROCS < 4 || exp.Runtime.GCPercent != -1 {
		t.Errorf("runtime %+v", exp.Runtime)
	}
}

// TestRunLatencyEveryImpl runs every available implementation for a few
// round trips at every placement: no lost wake (the watchdog would fail),
// every config present.
func TestRunLatencyEveryImpl(t *testing.T) {
	longtest.Skip(t)
	defer func(old func([2]int) *results.Probe) { measureProbe = old }(measureProbe)
	measureProbe = cheapProbe
	o := tinyLatency(ImplAll)
	o.Placements = []string{driver.All}
	o.Warmup = 2
	o.Iterations = 20
	o.Rounds = 1
	exp := drivertest.Run(t, RunLatency, o)
	if len(exp.Configs) < 3 {
		t.Fatalf("only %d configs", len(exp.Configs))
	}
	for _, c := range exp.Configs {
		if c.Summary[results.MSamples] != 40 {
			t.Errorf("%s: %v samples", c.Key, c.Summary[results.MSamples])
		}
	}
}

func TestRunLatencyGapAndLot(t *testing.T) {
	o := tinyLatency(ImplLot, sleeper(t))
	o.Gaps = []time.Duration{0, 20 * time.Microsecond}
	o.GapWarmup, o.GapIterations = 2, 10
	o.LotParker = sleeper(t)
	exp := drivertest.Run(t, RunLatency, o)
	s := sleeper(t)
	want := []string{"lot/unpinned", "lot/unpinned/gap=20µs", s + "/unpinned", s + "/unpinned/gap=20µs"}
	if len(exp.Configs) != len(want) {
		t.Fatalf("%d configs", len(exp.Configs))
	}
	for i, c := range exp.Configs {
		if c.Key != want[i] {
			t.Errorf("config %d: %q, want %q", i, c.Key, want[i])
		}
	}
	if exp.Configs[0].Params["lot_parker"] != sleeper(t) {
		t.Errorf("lot parker not recorded: %v", exp.Configs[0].Params)
	}
	if exp.Configs[1].Summary[results.MSamples] != 20 {
		t.Errorf("gap config used %v samples", exp.Configs[1].Summary[results.MSamples])
	}
}

func TestRunLatencyInterleaved(t *testing.T) {
	o := tinyLatency(withAvailable(sleeper(t), "spin", ImplLot, ImplCFutex)...)
	o.Interleave = true
	o.Rounds = 3
	exp := drivertest.Run(t, RunLatency, o)
	if len(exp.Configs) < 3 {
		t.Fatalf("%d configs", len(exp.Configs))
	}
	for _, c := range exp.Configs {
		if len(c.Rounds) != 3 || c.Summary[results.MSamples] != 100 || c.Foreign == nil {
			t.Errorf("%s: %d rounds, summary %v", c.Key, len(c.Rounds), c.Summary)
		}
	}
	if exp.Options["interleave"] != "true" {
		t.Errorf("interleave not recorded")
	}
}

// TestQuickLatencyNoTrace: the traced round is opt-in under --quick (it
// added about a third to the quick run), on in the study's method.
func TestQuickLatencyNoTrace(t *testing.T) {
	if QuickLatencyOptions().SchedCounts || !DefaultLatencyOptions().SchedCounts {
		t.Errorf("SchedCounts: quick %v, default %v; want false, true", QuickLatencyOptions().SchedCounts, DefaultLatencyOptions().SchedCounts)
	}
}

// TestLatencyBadOptions: each refused naming its field (the field is left
// open where what is refused differs by OS: an implementation unknown
// there, or a placement it cannot pin).
func TestLatencyBadOptions(t *testing.T) {
	tiny := func() LatencyOptions { return tinyLatency(sleeper(t)) }
	drivertest.WantRefused(t, tiny, []drivertest.Bad[LatencyOptions]{
		{Field: "Impls", Want: "futex", Edit: func(o *LatencyOptions) { o.Impls = []string{"nope"} }}, // the valid names
		{Field: "Impls", Edit: func(o *LatencyOptions) { o.Impls = []string{"wasm"} }},
		{Field: "Placements", Edit: func(o *LatencyOptions) { o.Placements = []string{"moon"} }},
		{Field: "Iterations", Edit: func(o *LatencyOptions) { o.Iterations = 0 }},
		{Field: "Rounds", Edit: func(o *LatencyOptions) { o.Rounds = 0 }},
		{Field: "Rounds", Edit: func(o *LatencyOptions) { o.Rounds = MaxRounds + 1 }},
		{Field: "Gaps", Edit: func(o *LatencyOptions) { o.Gaps = []time.Duration{-time.Microsecond} }},
		{Edit: func(o *LatencyOptions) { o.Impls, o.Placements = []string{"spin"}, []string{driver.SameCore} }},
		{Field: "LotParker", Edit: func(o *LatencyOptions) { o.LotParker = "crossbeam-nope" }},
		{Field: "GOMAXPROCS", Edit: func(o *LatencyOptions) { o.GOMAXPROCS = []int{0} }},
		{Field: "GOMAXPROCS", Edit: func(o *LatencyOptions) { o.GOMAXPROCS = []int{257} }},
		{Field: "GOMAXPROCS", Edit: func(o *LatencyOptions) { o.GOMAXPROCS = []int{2, 2} }},
		{Field: "Participants", Edit: func(o *LatencyOptions) { o.Participants = []string{"fibers"} }},
		{Edit: func(o *LatencyOptions) { o.Impls, o.Participants = []string{"futex"}, []string{driver.Goroutines} }},
		{Field: "Impls", Edit: func(o *LatencyOptions) { o.Impls = []string{ImplWaitGroup} }},
	})
	o := tiny()
	o.Rounds = 0
	drivertest.Refused(t, "RunLatency", RunLatency, o)
}

func TestRunLatencyCancelled(t *testing.T) {
	drivertest.Cancelled(t, RunLatency, tinyLatency(sleeper(t)))
}

// sleeper is a sleeping thread parker that runs here (futex on Linux), or
// skips the test saying none does.
func sleeper(t *testing.T) string {
	t.Helper()
	n := FirstAvailable("futex", "pthread", "waitonaddress", "keyedevent")
	if n == "" {
		t.Skip("no sleeping thread parker runs here")
	}
	return n
}

// withAvailable keeps the names that run here.
func withAvailable(names ...string) []string {
	var out []string
	for _, n := range names {
		if FirstAvailable(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// TestQuickLatencyWherePinningIsBlocked: where the affinity cannot be read
// (every OS but Linux; checked under Wine), the quick preset runs unpinned
// and plans at least one configuration, the pinned placements are skipped
// with a warning naming the reason when not asked for by name, and refused
// (exit 2) when asked for by name. On Linux it checks the preset pins.
func TestQuickLatencyWherePinningIsBlocked(t *testing.T) {
	o := QuickLatencyOptions()
	why := driver.PinBlocked()
	if why == "" {
		if !driver.SingleCPU() && (len(o.Placements) != 1 || o.Placements[0] != driver.CrossCore) {
			t.Fatalf("quick placements %v with a readable affinity; want cross-core", o.Placements)
		}
		return
	}
	if len(o.Placements) != 1 || o.Placements[0] != driver.Unpinned {
		t.Fatalf("quick placements %v where pinning is blocked (%s); want unpinned", o.Placements, why)
	}
	p, err := planLatency(o)
	if err != nil || len(p.configs) == 0 {
		t.Fatalf("quick plan: %v, err %v", p, err)
	}
	if !strings.Contains(strings.Join(p.warnings, "\n"), why) {
		t.Errorf("warnings %q do not name the reason %q", p.warnings, why)
	}
	o.Placements = []string{driver.All}
	p, err = planLatency(o)
	if err != nil || len(p.configs) == 0 {
		t.Fatalf("plan over every placement: %v, err %v", p, err)
	}
	warnings := p.warnings
	for _, c := range p.configs {
		if c.placement != driver.Unpinned {
			t.Errorf("planned %s where pinning is blocked", c.key())
		}
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, driver.CrossCore+" skipped: ") || !strings.Contains(w, driver.SameCore+" skipped: ") {
		t.Errorf("warnings %q do not say the pinned placements were skipped", warnings)
	}
	o.Placements = []string{driver.CrossCore}
	var oe *driver.OptionError
	if err := o.Validate(); !errors.As(err, &oe) || oe.Field != "Placements" {
		t.Errorf("explicit cross-core where pinning is blocked: err %v; want an OptionError on Placements", err)
	}
}

// TestEchoParticipants: latency records its participants with the default
// written out (Echo's empty=threads is driver.Threads; selfwake's test is
// its own).
func TestEchoParticipants(t *testing.T) {
	lo := DefaultLatencyOptions()
	if got := driver.Echo(lo)["participants"]; got != driver.Threads {
		t.Errorf("latency's default participants echo %q, want %q", got, driver.Threads)
	}
	lo.Participants = []string{driver.Goroutines, driver.Threads}
	if got := driver.Echo(lo)["participants"]; got != "goroutines,threads" {
		t.Errorf("latency's participants echo %q", got)
	}
}
