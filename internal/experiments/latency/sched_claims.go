package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// The Go scheduler's share of a wake (docs/scheduler.md): two claims,
// evaluated per placement from the same run's configurations.
const (
	// schedMedianMax: the median ratio's limit. The p99 ratio is shown, not
	// judged: over three rounds it is decided by the run's conditions, and
	// the rounds of one run agree (0.02x-2.35x across 17 runs on the AMD
	// EPYC f25m17 guest; docs/scheduler.md), so no spread covers it.
	schedMedianMax = 1.10
	// plainStealsMin: clearly not zero (10 steals in a round of 5000
	// trips). How many waits lose their P depends on how long they last
	// against sysmon's tick: on a quiet 2-vCPU VM, round trips of ~10 µs,
	// 0.009-0.26 per round trip in the traced round; under load (longer
	// waits) 0.5-1.3; in TestFutexKeepAliveStopsSteals (300 µs waits)
	// 60-98% of waits.
	plainStealsMin  = 0.002
	keptStealsRatio = 0.1
)

// schedShareRule is judged on the waits that slept (median_slept_ns) where
// both have them: the share of waits that found their flag set (4-43% per
// configuration on the 2-vCPU KVM guest, C's included) moves the overall
// figures by more than the scheduler's share. Only where both wake across
// CPUs: on one CPU a wake is a switch of about 1 µs, the runtime's syscall
// exit a tenth of it. Each round carries the run's noise
// (claim.Figure.Noisy), futex-raw and c-futex apart: 0.5-1.84x a round on
// the AMD EPYC f25m17 guest under load, 1.02-1.03x on the Intel f6m167 one
// (docs/scheduler.md); without futex-raw the rounds' spread alone decides.
var schedShareRule = claim.Rule{ID: "E12-sched-share", Statement: "the Go scheduler's share of a wake is small: on the waits that slept, for wakes across CPUs, the scheduler-aware futex wait's median is within 1.10x of c-futex's, each round's ratio taken with the run's noise (how far apart futex-raw, the same wait bypassing the scheduler, and c-futex are in a round); p99 shown, not judged", Select: threads,
	Needs: "needs futex and c-futex at one placement, both waking across CPUs",
	Figures: func(cs []*results.Config) (out []claim.Figure) {
		for _, p := range placementsOf(exp(cs)) {
			aware, ref, raw := findConfig(exp(cs), parkers.NameFutex, p), findConfig(exp(cs), ImplCFutex, p), findConfig(exp(cs), parkers.NameFutexRaw, p)
			_, _, p99, ok := schedShare(exp(cs), p)
			if !ok {
				continue
			}
			which, mk := "overall", results.MMedian
			if _, sp, ok := sleptRatios(aware, ref); ok {
				p99, which, mk = sp, "slept waits", MMedianSlept
			}
			f := claim.Ratio(p+": futex/c-futex median ("+which+")", aware, ref, mk).AtMost(schedMedianMax)
			note := fmt.Sprintf("p99 %.2fx, not judged", p99)
			if pairs := apart(raw, ref, mk); len(pairs) > 0 {
				f = f.Noisy(pairs, "futex-raw and c-futex apart")
			} else {
				note += "; noise not measured (no futex-raw)"
			}
			out = append(out, f.With(note).Skip(oneCPU(aware, ref)))
		}
		return out
	},
	Context: func(cs []*results.Config) (out []string) {
		for _, p := range placementsOf(exp(cs)) {
			if part, _, _, ok := schedShare(exp(cs), p); ok {
				out = append(out, p+": "+part)
			}
		}
		return out
	}}

// oneCPU is why a figure of a and b is not judged when either woke on one
// CPU for some or all wakes; "" when both woke across CPUs.
func oneCPU(a, b *results.Config) string {
	if acrossCPUs(a) && acrossCPUs(b) {
		return ""
	}
	return "one CPU for some or all wakes" + sameCPUNote(a)
}

// apart is how far apart x's and ref's metric are in each round, none
// without x.
func apart(x, ref *results.Config, metric string) []float64 {
	if x == nil {
		return nil
	}
	return claim.PerRound([]*results.Config{x, ref}, func(m []map[string]float64) (float64, bool) {
		return claim.Apart(m[0][metric], m[1][metric])
	})
}

// schedStealsRounds is the traced parts E12-sched-steals needs to show
// its spread (claim.Rule.MinRounds), the default run's three: one traced
// round read futex's steals at 0.019x futex-plain's, then 0.144x, in two
// default runs (docs/findings.md).
const schedStealsRounds = 3

// schedStealsRule is judged where futex-plain and futex wake across CPUs:
// sysmon steals the P of a thread it finds in its syscall after 10 ms of a
// still schedtick, and on one CPU a wait is a switch of about 1 µs that
// sysmon's 20 µs tick practically never catches (0 steals for futex-plain
// at same-core on the 2-vCPU KVM guest, where cross-core it lost its P on
// 0.6 per round trip): nothing for the keep-alive to remove, shown but not
// judged.
//
// Decided on the traced round's parts (sched.go: one per measured round).
// A placement where either ran busy (the kit's busy policy) is left out:
// a waiter that waits for a CPU outlasts sysmon's 10 ms and loses its P
// with or without the keep-alive (futex's steals 0-0.0002 per round trip
// in the quiet AMD runs, 0.016-0.045 in the loaded ones).
var schedStealsRule = claim.Rule{ID: "E12-sched-steals", Statement: "the mechanism: a parked thread that never passes through the scheduler has its P stolen by sysmon (futex-plain, >= 0.002 steals per round trip; up to one per wait once waits outlast sysmon's 20 us tick), and the keep-alive Gosched removes them (futex, <= 1/10 of futex-plain's)", Select: threads, MinRounds: schedStealsRounds,
	Needs: "needs futex-plain and futex at one placement, both waking across CPUs, with --sched-counts",
	How:   "per placement across CPUs, on each part of the traced round, futex-plain's steals per round trip and futex's over futex-plain's",
	Figures: func(cs []*results.Config) (out []claim.Figure) {
		for _, p := range placementsOf(exp(cs)) {
			plain, kept := findConfig(exp(cs), parkers.NameFutexPlain, p), findConfig(exp(cs), parkers.NameFutex, p)
			if plain == nil || kept == nil {
				continue
			}
			ps, ok1 := plain.Summary[schedacct.MSchedSteals]
			ks, ok2 := kept.Summary[schedacct.MSchedSteals]
			if !ok1 || !ok2 {
				continue
			}
			skip, note := oneCPU(plain, kept), fmt.Sprintf("sysmon switches/rt %.3f vs %.3f; Gosched/rt futex %.4f", plain.Summary[schedacct.MCtxSwSysmon], kept.Summary[schedacct.MCtxSwSysmon], kept.Summary[schedacct.MSchedGosched])
			out = append(out, claim.Fig(p+" futex-plain steals/rt per traced part", claim.Values(plain, schedacct.MSchedSteals), plain, kept).AtLeast(plainStealsMin).With(note).Skip(skip))
			if ps >= plainStealsMin {
				out = append(out, claim.Fig(p+" futex/futex-plain steals per traced part", claim.Ratios(kept, plain, schedacct.MSchedSteals), plain, kept).In("%").AtMost(keptStealsRatio).
					With(fmt.Sprintf("steals/rt futex-plain %.3f, futex %.3f", ps, ks)).Skip(skip))
			}
		}
		return out
	}}
