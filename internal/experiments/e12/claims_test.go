package e12

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// cfg builds a latency config with a median and the figures the claims read.
func cfg(impl, kind, placement string, sleeps bool, median, noSleep, samples, csw float64) *results.Config {
	s := "false"
	if sleeps {
		s = "true"
	}
	return &results.Config{
		Key: impl + "/" + placement, Impl: impl, Kind: kind, Placement: placement,
		Params: map[string]string{"sleeps": s, "gap": "0s"},
		Summary: map[string]float64{
			results.MMedian: median, results.MNoSleep: noSleep, results.MSamples: samples, results.MCtxSwThread: csw,
		},
	}
}

func lat(cs ...*results.Config) *results.Experiment {
	return &results.Experiment{Name: "latency", Configs: cs}
}

func wantVerdict(t *testing.T, what string, c results.Claim, want string) {
	t.Helper()
	if c.Verdict != want {
		t.Errorf("%s: verdict %q, want %q (evidence: %s)", what, c.Verdict, want, c.Evidence)
	}
	if c.ID == "" || c.Statement == "" || c.Evidence == "" {
		t.Errorf("%s: incomplete claim %+v", what, c)
	}
	// A claim that does not hold says why in one line, with the figure:
	// the summary prints it beside the ID.
	if (c.Verdict == results.DoesNotHold) != (c.Why != "") || strings.Contains(c.Why, "\n") {
		t.Errorf("%s: verdict %q with why %q: want one line exactly when it does not hold", what, c.Verdict, c.Why)
	}
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
	wantVerdict(t, "regimes apart, each within 1.1x", ClaimSameOrder(split), results.Holds)
	// The spin floor compares spin with the wakes across CPUs (116x).
	wantVerdict(t, "spin vs wakes across CPUs", ClaimSpinFloor(split), results.Holds)
	// On one CPU ~40% never sleep by construction: not judged; across
	// CPUs 2% and 3% do not hold, and the C reference says it is the machine.
	wantVerdict(t, "no-sleep across CPUs 2-3%", ClaimReallySlept(split), results.DoesNotHold)
	withC := lat(unpinned("futex", true, 1130, 830, 2000, 2, 1), cfg(ImplCFutex, KindCRef, "cross-core", true, 21000, 300, 2000, 2),
		cfg("futex", "thread", "cross-core", true, 21000, 200, 2000, 2))
	c := ClaimReallySlept(withC)
	wantVerdict(t, "C reference 15% no-sleep", c, results.DoesNotHold)
	if !strings.Contains(c.Why, "c-futex (no Go runtime) 15.0% too") || !strings.Contains(c.Why, "the machine's") || !strings.Contains(c.Evidence, "futex/unpinned (same CPU 100%)") {
		t.Errorf("why %q / evidence %q: want c-futex's share as the machine's, and the one-CPU config listed as not judged", c.Why, c.Evidence)
	}
	// A Go implementation far above the C reference is not the machine's.
	spinning := lat(cfg(ImplCFutex, KindCRef, "cross-core", true, 21000, 44, 2000, 2), cfg("futex-spin", "thread", "cross-core", true, 15000, 860, 2000, 1.6))
	if c := ClaimReallySlept(spinning); !strings.Contains(c.Why, "43.0% of futex-spin/cross-core") || strings.Contains(c.Why, "machine") {
		t.Errorf("futex-spin 43%%, c-futex 2.2%%: why %q, want futex-spin's share and c-futex's, not the machine", c.Why)
	}
	oneCPU := lat(unpinned("futex", true, 1130, 830, 2000, 2, 1), unpinned("lot", true, 1220, 800, 2000, 2, 1))
	wantVerdict(t, "only one-CPU configs", ClaimReallySlept(oneCPU), results.NotEvaluated)

	// A config whose samples are bimodal (or whose threads shared a CPU
	// for half the wakes) is left out of the comparison.
	mixed := unpinned("pthread", true, 31860, 40, 2000, 2, 0.33)
	fast := unpinned("futex", true, 910, 830, 2000, 2, 1)
	fast2 := unpinned("std", true, 880, 830, 2000, 2, 1)
	m := ClaimSameOrder(lat(fast, fast2, mixed))
	wantVerdict(t, "mixed config left out", m, results.Holds)
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
	wantVerdict(t, "one CPU, 13.6x apart", ClaimSameOrder(far), results.DoesNotHold)
	slowSpin := lat(unpinned("futex", true, 21000, 0, 2000, 2, 0), unpinned("spin", false, 2500, 0, 2000, 0, 0))
	wantVerdict(t, "spin 8.4x below the wake across CPUs", ClaimSpinFloor(slowSpin), results.DoesNotHold)
}

func TestClaimSameOrder(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 60000, 0, 2000, 2),
		// goroutine-level and busy ones do not count
		cfg("chan", "goroutine", "cross-core", true, 900000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 100, 0, 2000, 0))
	wantVerdict(t, "within 3x", ClaimSameOrder(ok), results.Holds)

	bad := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 250000, 0, 2000, 2))
	wantVerdict(t, "12.5x apart", ClaimSameOrder(bad), results.DoesNotHold)

	// Fine on one placement, violated on another: does not hold.
	mixed := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("pthread", "thread", "cross-core", true, 30000, 0, 2000, 2),
		cfg("futex", "thread", "same-core", true, 5000, 0, 2000, 2),
		cfg("pthread", "thread", "same-core", true, 51000, 0, 2000, 2))
	wantVerdict(t, "one placement off", ClaimSameOrder(mixed), results.DoesNotHold)

	one := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2))
	wantVerdict(t, "one impl", ClaimSameOrder(one), results.NotEvaluated)
}

func TestClaimSpinFloor(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 150, 0, 2000, 0))
	wantVerdict(t, "spin 133x below", ClaimSpinFloor(ok), results.Holds)

	bad := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2),
		cfg("spin", "thread", "cross-core", false, 2500, 0, 2000, 0))
	wantVerdict(t, "spin only 8x below", ClaimSpinFloor(bad), results.DoesNotHold)

	// Without Go spin, the C reference stands in.
	cOnly := lat(cfg("c-futex", KindCRef, "cross-core", true, 1000, 0, 2000, 2),
		cfg(ImplCSpin, KindCRef, "cross-core", false, 200, 0, 2000, 0))
	wantVerdict(t, "c-spin 5x below", ClaimSpinFloor(cOnly), results.DoesNotHold)

	none := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2))
	wantVerdict(t, "no spin", ClaimSpinFloor(none), results.NotEvaluated)
}

func TestClaimReallySlept(t *testing.T) {
	ok := lat(cfg("futex", "thread", "cross-core", true, 20000, 10, 2000, 1.98),
		cfg("spin", "thread", "cross-core", false, 100, 2000, 2000, 0)) // busy: not judged
	wantVerdict(t, "0.5% no-sleep, 2 csw", ClaimReallySlept(ok), results.Holds)

	manyNoSleep := lat(cfg("futex", "thread", "cross-core", true, 20000, 100, 2000, 1.9))
	wantVerdict(t, "5% no-sleep", ClaimReallySlept(manyNoSleep), results.DoesNotHold)

	noSwitch := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 0.2))
	wantVerdict(t, "0.2 csw/rt", ClaimReallySlept(noSwitch), results.DoesNotHold)

	none := lat(cfg("spin", "thread", "cross-core", false, 100, 0, 2000, 0))
	wantVerdict(t, "nothing sleeps", ClaimReallySlept(none), results.NotEvaluated)
}

func swCfg(impl string, nsPerPair, csw float64) *results.Config {
	return &results.Config{Key: impl, Impl: impl, Summary: map[string]float64{results.MNsPerPair: nsPerPair, MCtxSwPerPair: csw}}
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
	wantVerdict(t, "133x and 800x", c[0], results.Holds)

	// futex cross-core is 20 µs; a 300 ns self-wake is only 67x below
	// (no study mechanism in both: every common one is judged).
	bad := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("futex", 300, 0), swCfg("spin", 10, 0)}}
	wantVerdict(t, "67x", CrossClaims(l, bad)[0], results.DoesNotHold)

	// With a study mechanism (lot, std, crossbeam) measured, only those
	// are judged: futex's 67x is shown, not held against the claim.
	study := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("futex", 300, 0), swCfg("std", 10, 0)}}
	l2 := lat(cfg("futex", "thread", "cross-core", true, 20000, 0, 2000, 2), cfg("std", "token", "cross-core", true, 20000, 0, 2000, 2))
	wantVerdict(t, "std 2000x, futex not judged", CrossClaims(l2, study)[0], results.Holds)
	studyBad := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("std", 400, 0)}}
	wantVerdict(t, "std 50x", CrossClaims(l2, studyBad)[0], results.DoesNotHold)

	disjoint := &results.Experiment{Name: "selfwake", Configs: []*results.Config{swCfg("spin", 3, 0)}}
	wantVerdict(t, "nothing in common", CrossClaims(l, disjoint)[0], results.NotEvaluated)

	// Merged into the latency claims, it replaces the not-evaluated one.
	merged := MergeClaims(LatencyClaims(l), CrossClaims(l, ok))
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

func TestClaimSelfwakeAtOnce(t *testing.T) {
	ok := &results.Experiment{Configs: []*results.Config{swCfg("futex", 150, 0), swCfg("std", 10, 0.00001)}}
	wantVerdict(t, "no switches", ClaimSelfwakeAtOnce(ok), results.Holds)
	bad := &results.Experiment{Configs: []*results.Config{swCfg("futex", 150, 0.5)}}
	wantVerdict(t, "half a switch per pair", ClaimSelfwakeAtOnce(bad), results.DoesNotHold)
	wantVerdict(t, "empty", ClaimSelfwakeAtOnce(&results.Experiment{}), results.NotEvaluated)
}
