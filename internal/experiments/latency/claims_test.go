package latency

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/claim/claimtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// cfg builds a latency config with a median and the figures the claims read.
func cfg(impl, kind, placement string, sleeps bool, median, noSleep, samples, csw float64) *results.Config {
	return &results.Config{
		Key: impl + "/" + placement, Impl: impl, Kind: kind, Placement: placement,
		Params: map[string]string{"sleeps": strconv.FormatBool(sleeps), "gap": "0s"},
		Summary: map[string]float64{
			results.MMedian: median, results.MNoSleep: noSleep, results.MSamples: samples, results.MCtxSwThread: csw,
		},
	}
}

func sameOrder(e *results.Experiment) results.Claim { return claim.Evaluate(sameOrderRule, e.Configs) }
func spinFloor(e *results.Experiment) results.Claim { return claim.Evaluate(spinFloorRule, e.Configs) }
func reallySlept(e *results.Experiment) results.Claim {
	return claim.Evaluate(reallySleptRule, e.Configs)
}
func schedShareOf(e *results.Experiment) results.Claim {
	return claim.Evaluate(schedShareRule, e.Configs)
}
func schedSteals(e *results.Experiment) results.Claim {
	return claim.Evaluate(schedStealsRule, e.Configs)
}

func lat(cs ...*results.Config) *results.Experiment {
	return &results.Experiment{Name: "latency", Configs: cs}
}

// unpinned is an unpinned config whose sampled wakes had both threads on
// one CPU sameCPU of the time.
func unpinned(impl string, sleeps bool, median, noSleep, samples, csw, sameCPU float64) *results.Config {
	c := cfg(impl, "thread", "unpinned", sleeps, median, noSleep, samples, csw)
	c.Summary[MSameCPU] = sameCPU
	return c
}

// Unpinned, the scheduler puts an implementation's two threads on one CPU
// (a switch, ~1 µs) or two (a wake, ~25 µs): the claims compare like with
// like. Each case is numbers a quiet run of the 2-vCPU KVM guest gave.
func TestClaimsRegimes(t *testing.T) {
	// futex on one CPU at 1.1 µs, pthread on two at 29 µs: 26x apart but
	// not comparable; within each regime they agree.
	split := lat(unpinned("futex", true, 1130, 830, 2000, 2, 1), unpinned("lot", true, 1220, 800, 2000, 2, 0.97),
		unpinned("pthread", true, 29200, 40, 2000, 2, 0), unpinned("std", true, 27100, 60, 2000, 2, 0.02),
		unpinned("spin", false, 253, 0, 2000, 0, 0))
	claimtest.Want(t, "regimes apart, each within 1.1x", sameOrder(split), results.Holds)
	// The spin floor compares spin with the wakes across CPUs (116x).
	claimtest.Want(t, "spin vs wakes across CPUs", spinFloor(split), results.Holds)
	// On one CPU ~40% never sleep by construction: not judged; across
	// CPUs 2% and 3% do not hold, and the C reference says it is the machine.
	claimtest.Want(t, "no-sleep across CPUs 2-3%", reallySlept(split), results.DoesNotHold)
	withC := lat(unpinned("futex", true, 1130, 830, 2000, 2, 1), cfg(ImplCFutex, KindCRef, "cross-core", true, 21000, 300, 2000, 2),
		cfg("futex", "thread", "cross-core", true, 21000, 200, 2000, 2))
	c := reallySlept(withC)
	claimtest.Want(t, "C reference 15% no-sleep", c, results.DoesNotHold)
	if !strings.Contains(c.Why, "c-futex (no Go runtime) 15.0% too: ") || !strings.Contains(c.Why, "the machine's") || !strings.Contains(c.Evidence, "futex/unpinned (same CPU 100%)") {
		t.Errorf("why %q / evidence %q: want c-futex's share as the machine's, and the one-CPU config listed as not judged", c.Why, c.Evidence)
	}
	// A Go implementation far above the C reference is not the machine's.
	spinning := lat(cfg(ImplCFutex, KindCRef, "cross-core", true, 21000, 44, 2000, 2), cfg("futex-spin", "thread", "cross-core", true, 15000, 860, 2000, 1.6))
	if c := reallySlept(spinning); !strings.Contains(c.Why, "futex-spin/cross-core no-sleep share 43.0%, limit at most 1.0%") || strings.Contains(c.Why, "machine") {
		t.Errorf("futex-spin 43%%, c-futex 2.2%%: why %q, want futex-spin's share and c-futex's, not the machine", c.Why)
	}
	oneCPU := lat(unpinned("futex", true, 1130, 830, 2000, 2, 1), unpinned("lot", true, 1220, 800, 2000, 2, 1))
	claimtest.Want(t, "only one-CPU configs", reallySlept(oneCPU), results.NotEvaluated)

	// A config whose samples are bimodal (or whose threads shared a CPU
	// for half the wakes) is left out of the comparison.
	mixed := unpinned("pthread", true, 31860, 40, 2000, 2, 0.33)
	fast := unpinned("futex", true, 910, 830, 2000, 2, 1)
	fast2 := unpinned("std", true, 880, 830, 2000, 2, 1)
	m := sameOrder(lat(fast, fast2, mixed))
	claimtest.Want(t, "mixed config left out", m, results.Holds)
	if !strings.Contains(m.Evidence, "left out") || !strings.Contains(m.Evidence, "pthread/unpinned (same CPU 33%)") {
		t.Errorf("evidence %q: want the mixed config named as left out", m.Evidence)
	}
	// Bimodal samples alone do not make a config mixed: on one CPU
	// pthread's split 60/40 at 0.88 and 2.3 µs, its own two paths.
	bimodal := unpinned("pthread", true, 880, 740, 2000, 2, 1)
	bimodal.Modes = []results.Mode{{MedianNs: 880, Share: 0.6}, {MedianNs: 2340, Share: 0.4}}
	if r := regimeOf(bimodal); r != regimeOneCPU {
		t.Errorf("a bimodal config all on one CPU: regime %q, want one CPU", r)
	}
	// Within one regime the claims still bite.
	far := lat(unpinned("futex", true, 1100, 0, 2000, 2, 1), unpinned("pthread", true, 15000, 0, 2000, 2, 1))
	claimtest.Want(t, "one CPU, 13.6x apart", sameOrder(far), results.DoesNotHold)
	slowSpin := lat(unpinned("futex", true, 21000, 0, 2000, 2, 0), unpinned("spin", false, 2500, 0, 2000, 0, 0))
	claimtest.Want(t, "spin 8.4x below the wake across CPUs", spinFloor(slowSpin), results.DoesNotHold)
}

func TestClaimSameOrder(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 60000, 0, 2000, 2),
		// goroutine-level and busy ones do not count
		cfg("chan", "goroutine", "cross-core", true, 900000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 100, 0, 2000, 0))
	claimtest.Want(t, "within 3x", sameOrder(ok), results.Holds)

	bad := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 250000, 0, 2000, 2))
	claimtest.Want(t, "12.5x apart", sameOrder(bad), results.DoesNotHold)

	// Fine on one placement, violated on another: does not hold.
	mixed := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 30000, 0, 2000, 2),
		cfg("futex", "thread", "same-core", true, 5000, 0, 2000, 2),
		cfg("pthread", "thread", "same-core", true, 51000, 0, 2000, 2))
	claimtest.Want(t, "one placement off", sameOrder(mixed), results.DoesNotHold)

	one := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2))
	claimtest.Want(t, "one impl", sameOrder(one), results.NotEvaluated)
}

func TestClaimSpinFloor(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 150, 0, 2000, 0))
	claimtest.Want(t, "spin 133x below", spinFloor(ok), results.Holds)

	bad := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 2500, 0, 2000, 0))
	claimtest.Want(t, "spin only 8x below", spinFloor(bad), results.DoesNotHold)

	// Without Go spin, the C reference stands in.
	cOnly := lat(cfg("c-futex", KindCRef, "cross-core", true, 1000, 0, 2000, 2),
		cfg(ImplCSpin, KindCRef, "cross-core", false, 200, 0, 2000, 0))
	claimtest.Want(t, "c-spin 5x below", spinFloor(cOnly), results.DoesNotHold)

	none := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2))
	claimtest.Want(t, "no spin", spinFloor(none), results.NotEvaluated)
}

func TestClaimReallySlept(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 10, 2000, 1.98),
		cfg("spin", "thread", "cross-core", false, 100, 2000, 2000, 0)) // busy: not judged
	claimtest.Want(t, "0.5% no-sleep, 2 csw", reallySlept(ok), results.Holds)

	manyNoSleep := lat(cfg("futex", "thread", "cross-core", true, 20000, 100, 2000, 1.9))
	claimtest.Want(t, "5% no-sleep", reallySlept(manyNoSleep), results.DoesNotHold)

	noSwitch := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 0.2))
	claimtest.Want(t, "0.2 csw/rt", reallySlept(noSwitch), results.DoesNotHold)

	none := lat(cfg("spin", "thread", "cross-core", false, 100, 0, 2000, 0))
	claimtest.Want(t, "nothing sleeps", reallySlept(none), results.NotEvaluated)
}

func swCfg(impl string, nsPerPair, csw float64) *results.Config {
	return &results.Config{Key: impl, Impl: impl, Summary: map[string]float64{results.MNsPerPair: nsPerPair, "ctxsw_thread_per_pair": csw}}
}

func TestEvaluateE12Cross(t *testing.T) {
	l := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("futex", "thread", "same-core", true, 5000, 0, 2000, 2),
		cfg("std", "token", "same-core", true, 8000, 0, 2000, 2))
	ok := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("futex", 150, 0), swCfg("std", 10, 0), swCfg("spin", 3, 0)}}
	c := CrossClaims(l, ok)
	if len(c) != 1 {
		t.Fatalf("%d claims", len(c))
	}
	claimtest.Want(t, "133x and 800x", c[0], results.Holds)

	// futex cross-core is 20 µs; a 300 ns self-wake is only 67x below
	// (no study mechanism in both: every common one is judged).
	bad := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("futex", 300, 0), swCfg("spin", 10, 0)}}
	claimtest.Want(t, "67x", CrossClaims(l, bad)[0], results.DoesNotHold)

	// With a study mechanism (lot, std, crossbeam) measured, only those
	// are judged: futex's 67x is shown, not held against the claim.
	study := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("futex", 300, 0), swCfg("std", 10, 0)}}
	l2 := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2), cfg("std", "token", "cross-core", true, 20000, 0, 2000, 2))
	claimtest.Want(t, "std 2000x, futex not judged", CrossClaims(l2, study)[0], results.Holds)
	studyBad := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("std", 400, 0)}}
	claimtest.Want(t, "std 50x", CrossClaims(l2, studyBad)[0], results.DoesNotHold)

	// A wait whose reply mostly came before it slept is judged on its
	// slept waits: crossbeam as in a quiet AMD EPYC f25m17 default run
	// (overall median 520 ns, slept 5.19 µs, a 6 ns self-wake): 865x, not
	// 87x. Too few slept waits for a median: left out and named.
	spun := lat(slept(cfg("crossbeam", "token", "cross-core", true, 520, 1200, 2000, 1), 5193),
		slept(cfg("std", "token", "cross-core", true, 23055, 0, 2000, 2), 26248))
	sw := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("crossbeam", 6, 0), swCfg("std", 5, 0)}}
	claimtest.Want(t, "crossbeam on its slept waits", CrossClaims(spun, sw)[0], results.Holds)
	spunBad := lat(slept(cfg("crossbeam", "token", "cross-core", true, 520, 1200, 2000, 1), 300))
	claimtest.Want(t, "crossbeam's slept waits 50x", CrossClaims(spunBad, sw)[0], results.DoesNotHold)
	never := lat(slept(cfg("crossbeam", "token", "cross-core", true, 520, 1990, 2000, 1), 5193),
		slept(cfg("std", "token", "cross-core", true, 23055, 0, 2000, 2), 26248))
	c = CrossClaims(never, sw)
	claimtest.Want(t, "crossbeam left out, std judged", c[0], results.Holds)
	if !strings.Contains(c[0].Evidence, "left out, fewer than 50 waits slept: crossbeam/cross-core") {
		t.Errorf("evidence does not name the configuration left out: %s", c[0].Evidence)
	}
	onlyNever := lat(slept(cfg("crossbeam", "token", "cross-core", true, 520, 1990, 2000, 1), 5193))
	claimtest.Want(t, "nothing slept enough", CrossClaims(onlyNever, sw)[0], results.NotEvaluated)

	disjoint := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("spin", 3, 0)}}
	claimtest.Want(t, "nothing in common", CrossClaims(l, disjoint)[0], results.NotEvaluated)

	// Merged into the latency claims, it replaces the not-evaluated one.
	merged := WithReverse(LatencyClaims(l), l, ok)
	n := 0
	for _, m := range merged {
		if m.ID == ClaimE12Reverse {
			n++
			if m.Verdict != results.Holds {
				t.Errorf("merged reverse claim: %v", m.Verdict)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d reverse claims after merge", n)
	}
}

// slept sets a config's median over the waits that slept.
func slept(c *results.Config, medianSlept float64) *results.Config {
	c.Summary[MMedianSlept] = medianSlept
	return c
}

// classRun is a cross-core latency run shaped like one machine class's
// default run: the no-sleep shares (of 2000 waits) and the slept and
// overall medians. Intel Xeon f6m167 (quiet): futex-spin's spin catches
// 7-28% of replies, the keep-alive parkers miss 0.2-1.6%, the parkers
// without it 7-25%. AMD EPYC f25m17 (quiet): futex-spin 56-60% (overall
// median 0.4 µs, a busy-wait's), the keep-alive futex 8.6-15.8%, c-futex
// as much.
func classRun(amd bool) *results.Experiment {
	x := func(impl, kind string, sleeps bool, overall, slp, noSleep float64) *results.Config {
		return slept(cfg(impl, kind, "cross-core", sleeps, overall, noSleep*2000, 2000, 1.8), slp)
	}
	if !amd {
		return lat(x("futex", "thread", true, 27900, 28000, 0.012), x("futex-spin", "thread", true, 22000, 27000, 0.2),
			x("futex-plain", "thread", true, 25000, 28500, 0.2), x("lot", "thread", true, 29000, 29100, 0.003),
			x("pthread", "thread", true, 30000, 30000, 0.001), x(ImplCFutex, KindCRef, true, 29500, 29600, 0.004),
			x("spin", "thread", false, 240, 240, 0), x(ImplCSpin, KindCRef, false, 150, 150, 0))
	}
	return lat(x("futex", "thread", true, 28300, 30200, 0.12), x("futex-spin", "thread", true, 416, 27600, 0.58),
		x("futex-cgo", "thread", true, 520, 26500, 0.6), x("lot", "thread", true, 22800, 27700, 0.08),
		x("pthread-relative", "thread", true, 32350, 32400, 0.035), x(ImplCFutex, KindCRef, true, 28600, 30700, 0.12),
		x("spin", "thread", false, 150, 150, 0), x(ImplCSpin, KindCRef, false, 140, 140, 0))
}

// The E12 claims decide on what was measured on both classes: a
// configuration most of whose waits did not sleep is compared on the
// waits that slept (same-order, spin-floor) and is not judged as sleeping
// (really-slept), and every reason names its rule.
func TestClaimsBothClasses(t *testing.T) {
	for _, amd := range []bool{false, true} {
		name := map[bool]string{false: "Intel f6m167", true: "AMD f25m17"}[amd]
		run := classRun(amd)
		so, sf, rs := sameOrder(run), spinFloor(run), reallySlept(run)
		claimtest.Want(t, name+" same-order on slept waits", so, results.Holds)
		claimtest.Want(t, name+" spin-floor on slept waits", sf, results.Holds)
		// The study's claim really fails on both: the Go parkers without
		// the keep-alive (Intel) or the keep-alive futex and C alike (AMD)
		// miss the sleep in more than 1% of waits.
		claimtest.Want(t, name+" really-slept", rs, results.DoesNotHold)
		for _, c := range []results.Claim{so, sf, rs} {
			if !strings.Contains(c.Evidence, "rule: ") {
				t.Errorf("%s %s: evidence %q names no rule", name, c.ID, c.Evidence)
			}
		}
		if amd {
			if !strings.Contains(rs.Why, "futex/cross-core") && !strings.Contains(rs.Why, "c-futex") {
				t.Errorf("AMD really-slept: why %q, want the keep-alive futex's or C's share", rs.Why)
			}
			if strings.Contains(rs.Why, "futex-spin") || !strings.Contains(rs.Evidence, "futex-spin/cross-core 58%") {
				t.Errorf("AMD really-slept: why %q / evidence %q: futex-spin (58%% caught by its spin) is listed, not judged", rs.Why, rs.Evidence)
			}
			if !strings.Contains(so.Evidence, "futex-spin/cross-core 58% (overall median 416 ns, slept 27.60 µs)") {
				t.Errorf("AMD same-order: evidence %q, want futex-spin's share and the slept median it is compared on", so.Evidence)
			}
		}
	}
	// Must fail: a sleeping wake ten times slower on its slept waits, and
	// a spin no floor for the fastest slept wake.
	slow := classRun(true)
	slow.Configs = append(slow.Configs, slept(cfg("pthread-wallclock", "thread", "cross-core", true, 310000, 70, 2000, 1.8), 312000))
	c := sameOrder(slow)
	claimtest.Want(t, "a slept wake 11x the fastest", c, results.DoesNotHold)
	if !strings.Contains(c.Why, "pthread-wallclock") || !strings.Contains(c.Why, "limit at most 10.00x") {
		t.Errorf("why %q: want the slow implementation and the limit", c.Why)
	}
	slowSpin := classRun(false)
	for _, x := range slowSpin.Configs {
		if x.Impl == "spin" {
			x.Summary[results.MMedian] = 3000
		}
	}
	claimtest.Want(t, "spin 3 µs against a 28 µs slept wake", spinFloor(slowSpin), results.DoesNotHold)
	// A configuration that slept in too few waits has no slept median: left
	// out of the comparison, and said so.
	rare := lat(slept(cfg("futex-spin", "thread", "cross-core", true, 300, 1990, 2000, 0.1), 26000),
		slept(cfg("futex", "thread", "cross-core", true, 28000, 20, 2000, 1.8), 28000),
		slept(cfg("pthread", "thread", "cross-core", true, 30000, 2, 2000, 1.8), 30000))
	c = sameOrder(rare)
	claimtest.Want(t, "too few slept waits", c, results.Holds)
	if !strings.Contains(c.Evidence, "too few slept waits: left out") || !strings.Contains(c.Evidence, "2 impls") {
		t.Errorf("evidence %q: want futex-spin left out for too few slept waits", c.Evidence)
	}
}

// sched-share judges each round's slept-median ratio with that round's
// noise (futex-raw against c-futex, the same wait without the scheduler):
// shaped like the runs of both classes. Must hold clearly, must fail
// clearly, and the runs whose noise reaches the limit are near it.
func TestSchedShareNearLimit(t *testing.T) {
	// rounds gives c the slept median and p99 of each round (c-futex's
	// are 30 µs and 100 µs a round, so a ratio r is 30000*r).
	rounds := func(impl string, med, p99 []float64) *results.Config {
		c := schedCfg(impl, 28000, 60000, -1)
		for i := range med {
			c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{MMedianSlept: 30000 * med[i], MP99Slept: 100000 * p99[i]}})
		}
		c.Summary[MMedianSlept], c.Summary[MP99Slept] = 30000*stats.Median(med), 100000*stats.Median(p99)
		return c
	}
	one := []float64{1, 1, 1}
	mk := func(futex, raw, p99 []float64) *results.Experiment {
		e := lat(rounds("futex", futex, p99), rounds("c-futex", one, one))
		if raw != nil {
			e.Configs = append(e.Configs, rounds("futex-raw", raw, one))
		}
		return e
	}
	for _, tc := range []struct {
		name            string
		futex, raw, p99 []float64
		verdict         string
		near            bool
		margin          string
	}{
		// Intel Xeon f6m167, quiet: futex 0.81, 0.68, 0.69x; the bypass
		// 1.02-1.03x; p99 1.56, 2.61, 1.04x (not judged).
		{"intel", []float64{0.81, 0.68, 0.69}, []float64{1.02, 1.03, 1.02}, []float64{1.56, 2.61, 1.04}, results.Holds, false, ""},
		// AMD EPYC f25m17, the default run whose p99 rounds read 1.70,
		// 1.32, 1.22x (it failed then; the next run's were 0.64-0.91x):
		// the medians hold, and the third round's noise (futex-raw 0.74x)
		// reaches the limit.
		{"amd, flipped p99", []float64{1.02, 0.93, 0.87}, []float64{1.0, 0.9, 0.74}, []float64{1.70, 1.32, 1.22}, results.Holds, true,
			"cross-core: futex/c-futex median (slept waits) 0.93x, limit at most 1.10x (rounds 1.02x 0.93x 0.87x, each ±11%, futex-raw and c-futex apart; 1 of 3 within their noise of it)"},
		// AMD at load 1-4: futex 1.70-1.91x, but futex-raw, with no
		// scheduler, 1.62-1.84x: fails, within the run's noise.
		{"amd loaded", []float64{1.70, 1.91, 1.81}, []float64{1.72, 1.84, 1.62}, one, results.DoesNotHold, true, "each ±72%"},
		// The scheduler's share really over the limit: the bypass matches
		// c-futex, futex does not.
		{"fails clearly", []float64{1.40, 1.35, 1.45}, []float64{1.01, 0.99, 1.02}, one, results.DoesNotHold, false, ""},
		// No futex-raw: the rounds' spread alone decides (here, clear).
		{"no control", []float64{1.02, 0.93, 0.87}, nil, one, results.Holds, false, ""},
		{"no control, straddles", []float64{1.12, 1.05, 1.08}, nil, one, results.Holds, true, "rounds 1.12x 1.05x 1.08x; 1 of 3 on the other side"},
	} {
		c := schedShareOf(mk(tc.futex, tc.raw, tc.p99))
		claimtest.Want(t, tc.name, c, tc.verdict)
		if c.Near != tc.near || !strings.Contains(c.Margin, tc.margin) {
			t.Errorf("%s: near %v margin %q, want near %v with %q", tc.name, c.Near, c.Margin, tc.near, tc.margin)
		}
		if tc.raw == nil && !strings.Contains(c.Evidence, "noise not measured (no futex-raw)") {
			t.Errorf("%s: evidence %q, want the noise said unmeasured", tc.name, c.Evidence)
		}
	}
}
