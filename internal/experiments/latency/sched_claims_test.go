package latency

import (
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// schedCfg is a cross-core config with a median, a p99 and the traced
// round's steals (steals < 0: no traced round).
func schedCfg(impl string, median, p99, steals float64) *results.Config {
	c := cfg(impl, "thread", driver.CrossCore, true, median, 0, 10000, 2)
	c.Summary[results.MP99] = p99
	if steals >= 0 {
		c.Summary[MSchedSteals] = steals
	}
	return c
}

func TestClaimSchedShare(t *testing.T) {
	ok := lat(schedCfg("futex", 11500, 60000, 0), schedCfg("futex-raw", 11400, 59000, 0), schedCfg("c-futex", 11000, 58000, -1))
	wantVerdict(t, "1.05x/1.03x", ClaimSchedShare(ok), results.Holds)
	// The p99 ratio is shown, not judged: 1.40x at p99 with the median
	// at 1.06x holds; the median over its limit does not.
	tail := lat(schedCfg("futex", 12000, 81600, 0), schedCfg("c-futex", 11300, 58100, -1))
	if c := ClaimSchedShare(tail); c.Verdict != results.Holds || !strings.Contains(c.Evidence, "p99 shown, not judged") {
		t.Errorf("p99 1.40x, median 1.06x: %+v", c)
	}
	slow := lat(schedCfg("futex", 12800, 58000, 0), schedCfg("c-futex", 11300, 58100, -1))
	wantVerdict(t, "median 1.13x", ClaimSchedShare(slow), results.DoesNotHold)
	wantVerdict(t, "no c-futex", ClaimSchedShare(lat(schedCfg("futex", 1, 1, 0))), results.NotEvaluated)
}

func TestClaimSchedSteals(t *testing.T) {
	ok := lat(schedCfg("futex-plain", 12000, 80000, 1.2), schedCfg("futex", 11500, 60000, 0.01))
	wantVerdict(t, "1.2 vs 0.01", ClaimSchedSteals(ok), results.Holds)
	same := lat(schedCfg("futex-plain", 12000, 80000, 1.2), schedCfg("futex", 11500, 60000, 0.5))
	wantVerdict(t, "keep-alive did nothing", ClaimSchedSteals(same), results.DoesNotHold)
	quiet := lat(schedCfg("futex-plain", 12000, 80000, 0.04), schedCfg("futex", 11500, 60000, 0))
	wantVerdict(t, "quiet machine: 0.04 vs 0", ClaimSchedSteals(quiet), results.Holds)
	none := lat(schedCfg("futex-plain", 12000, 80000, 0.001), schedCfg("futex", 11500, 60000, 0))
	wantVerdict(t, "no steals to remove", ClaimSchedSteals(none), results.DoesNotHold)
	uncounted := lat(schedCfg("futex-plain", 12000, 80000, -1), schedCfg("futex", 11500, 60000, -1))
	wantVerdict(t, "no traced round", ClaimSchedSteals(uncounted), results.NotEvaluated)
}

func TestSchedShareNotes(t *testing.T) {
	both := lat(schedCfg("futex", 11000, 60000, 0), schedCfg("c-futex", 10000, 50000, 0))
	notes := SchedShareNotes(both)
	if len(notes) != 1 || !strings.Contains(notes[0], "futex median 11.00 µs (1.10x c-futex), p99 60.00 µs (1.20x)") {
		t.Errorf("notes %q, want one line with futex's ratios to c-futex", notes)
	}
	if n := SchedShareNotes(lat(schedCfg("futex", 1, 1, 0))); len(n) != 0 {
		t.Errorf("no c-futex: notes %q, want none", n)
	}
}

// sleptMetrics: a no-sleep sample is marked ^v by both runners; it counts
// in the overall histogram (unmarked in place) but not in the slept figures.
func TestSleptMetrics(t *testing.T) {
	s := []int64{10, ^int64(5), 20, ^int64(3)}
	m := map[string]float64{}
	sleptMetrics(s, m)
	if m[MMedianSlept] != 10 || m[MP99Slept] != 20 {
		t.Errorf("slept median %v, p99 %v; want 10 and 20 (the slept samples 10, 20)", m[MMedianSlept], m[MP99Slept])
	}
	if want := []int64{10, 5, 20, 3}; !slices.Equal(s, want) {
		t.Errorf("samples after %v, want unmarked %v", s, want)
	}
	none := map[string]float64{}
	sleptMetrics([]int64{^int64(1), ^int64(2)}, none)
	if _, ok := none[MMedianSlept]; ok {
		t.Errorf("no wait slept: %v, want no slept figures", none)
	}
}

// The scheduler's share is judged on the waits that slept (the no-sleep
// share moves the overall figures), and only for wakes across CPUs.
func TestClaimSchedShareSleptAndRegime(t *testing.T) {
	slept := func(c *results.Config, med, p99 float64) *results.Config {
		c.Summary[MMedianSlept], c.Summary[MP99Slept] = med, p99
		return c
	}
	// Overall 0.69x (futex had more no-sleep waits) and 1.4x at p99; on
	// the slept waits 1.04x and 1.08x: holds.
	moved := lat(slept(schedCfg("futex", 7000, 84000, 0), 21800, 64800), slept(schedCfg("c-futex", 10100, 60000, -1), 21000, 60000))
	wantVerdict(t, "slept 1.04x/1.08x", ClaimSchedShare(moved), results.Holds)
	// The slept waits over the limit: does not hold, with the placement.
	over := lat(slept(schedCfg("futex", 21000, 60000, 0), 24000, 90000), slept(schedCfg("c-futex", 21000, 60000, -1), 21000, 60000))
	c := ClaimSchedShare(over)
	wantVerdict(t, "slept 1.14x/1.5x", c, results.DoesNotHold)
	if !strings.HasPrefix(c.Why, driver.CrossCore+": ") {
		t.Errorf("why %q: want the placement first", c.Why)
	}
	// On one CPU (same-core) the ratio is shown, not judged.
	oneCPU := func(impl string, med, p99 float64) *results.Config {
		x := schedCfg(impl, med, p99, 0)
		x.Placement, x.Key = driver.SameCore, impl+"/same-core"
		return x
	}
	same := lat(oneCPU("futex", 912, 1550), oneCPU("c-futex", 808, 1290))
	c = ClaimSchedShare(same)
	wantVerdict(t, "one CPU only", c, results.NotEvaluated)
	if !strings.Contains(c.Evidence, "not judged") {
		t.Errorf("evidence %q: want the one-CPU ratio shown as not judged", c.Evidence)
	}
	// Steals: on one CPU futex-plain loses no P (its waits end before
	// sysmon's tick): shown, not judged; across CPUs the mechanism is.
	steals := lat(oneCPU("futex-plain", 900, 1500), oneCPU("futex", 910, 1500),
		schedCfg("futex-plain", 24700, 80000, 0.6), schedCfg("futex", 21400, 60000, 0.016))
	wantVerdict(t, "cross-core 0.6 vs 0.016, same-core not judged", ClaimSchedSteals(steals), results.Holds)
	wantVerdict(t, "same-core only", ClaimSchedSteals(lat(oneCPU("futex-plain", 900, 1500), oneCPU("futex", 910, 1500))), results.NotEvaluated)
}
