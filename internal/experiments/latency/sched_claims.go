package latency

import (
	"fmt"
	"math"
	"strings"

	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

// The Go scheduler's share of a wake (docs/scheduler.md): two claims,
// evaluated per placement from the same run's configurations.
const (
	ClaimE12SchedShare  = "E12-sched-share"
	ClaimE12SchedSteals = "E12-sched-steals"
)

const (
	stmtSchedShare = "the Go scheduler's share of a wake is small: on the waits that slept, for wakes across CPUs, the scheduler-aware futex wait's median is within 1.10x of c-futex's, each round's ratio taken with that round's noise (how far futex-raw, the same wait bypassing the scheduler, sits from c-futex); p99 shown, not judged"
	stmtSchedSteal = "the mechanism: a parked thread that never passes through the scheduler has its P stolen by sysmon (futex-plain, >= 0.002 steals per round trip; up to one per wait once waits outlast sysmon's 20 us tick), and the keep-alive Gosched removes them (futex, <= 1/10 of futex-plain's)"
)

const (
	// schedMedianMax: the median ratio's limit. Issue 14's 1.15x at p99 is
	// shown, not judged: the p99 ratio of two configurations over three
	// rounds is decided by the run's conditions, not by the code. On the
	// AMD EPYC f25m17 2-vCPU guest (3 Dec 2026, loads up to about 4) its
	// median over the rounds ranged 0.02x-2.35x across 17 runs; the rounds of one
	// run agreed: 1.22-1.70x in one default run, 0.54-0.91x in the next,
	// minutes later (c-futex's own p99 61-64 µs, then 86-105 µs). No spread
	// of one run's rounds covers that, so no verdict on it can be honest.
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

// perPlacement fills c from check run at every placement of lat: check
// reports whether the placement has what the claim needs (if not, why not
// in evidence, or "" when it lacks the configurations), and if so whether
// it holds there and the evidence. No placement with what it needs leaves
// c not evaluated, with missing (and the reasons) as the evidence. Why
// joins check's short reasons of the placements where it does not hold.
//
// check's limits decide it (results.Claim.Judge: the median of each
// limit's rounds, and near its limit when the rounds straddle it).
func perPlacement(c results.Claim, lat *results.Experiment, missing string, check func(p string) (applies bool, limits []results.Limit, evidence, why string)) results.Claim {
	n := 0
	var parts, bad, skipped []string
	var all []results.Limit
	for _, p := range placementsOf(lat) {
		applies, limits, part, why := check(p)
		if !applies {
			if part != "" {
				skipped = append(skipped, p+": "+part)
			}
			continue
		}
		n++
		for i := range limits {
			limits[i].Figure = p + " " + limits[i].Figure
		}
		all = append(all, limits...)
		parts = append(parts, p+": "+part)
		var one results.Claim
		if one.Judge(limits...); one.Verdict != results.Holds {
			bad = append(bad, p+": "+why)
		}
	}
	if n == 0 {
		c.Evidence = strings.Join(append([]string{missing}, skipped...), "; ")
		return c
	}
	c.Judge(all...)
	c.Evidence = strings.Join(append(parts, skipped...), "; ")
	if c.Verdict != results.Holds {
		c.Why = strings.Join(bad, "; ")
	}
	return c
}

// ClaimSchedShare: per placement with both futex and c-futex, futex's
// median as a ratio to c-futex's, round by round, against 1.10x; the p99
// ratio and futex-raw's and futex-plain's beside it, shown.
//
// Judged on the waits that slept (median_slept_ns) where both have them: a
// wait that finds its flag set records a short sample, and the share of
// those (4-43% per configuration on the 2-vCPU KVM guest, C's included)
// moves the overall figures by more than the scheduler's share. And only
// where both wake across CPUs: on one CPU a wake is a context switch of
// about 1 µs, of which the runtime's syscall exit (about 0.1 µs) is a
// tenth; the ratio is shown there, not judged.
//
// Each round's ratio carries that round's noise: futex-raw (the same
// futex wait on a Go thread, through RawSyscall, so without the scheduler)
// against c-futex in the same round, its distance from 1. Two waits
// without the scheduler differ only by the conditions of the round, and
// on the AMD EPYC f25m17 guest those moved futex-raw/c-futex to 0.5-1.84x
// in whole runs (futex/c-futex with it: 1.62-1.84x and 1.70-1.91x in one
// run at load 1-4), while on the Intel f6m167 guest it read 1.02-1.03x. A
// round within its noise of the limit makes the verdict near its limit;
// without futex-raw the rounds' spread alone decides it, and the
// evidence says the noise was not measured.
func ClaimSchedShare(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimE12SchedShare, Statement: stmtSchedShare, Verdict: results.NotEvaluated}
	return perPlacement(c, lat, "needs futex and c-futex at one placement, both waking across CPUs", func(p string) (bool, []results.Limit, string, string) {
		part, med, p99, ok := schedShare(lat, p)
		if !ok {
			return false, nil, "", ""
		}
		aware, ref, raw := findConfig(lat, parkers.NameFutex, p), findConfig(lat, ImplCFutex, p), findConfig(lat, parkers.NameFutexRaw, p)
		if !acrossCPUs(aware) || !acrossCPUs(ref) {
			return false, nil, "not judged (one CPU for some or all wakes" + sameCPUNote(aware) + "): " + part, ""
		}
		which, mk := "overall", results.MMedian
		if sm, sp, ok := sleptRatios(aware, ref); ok {
			med, p99, which, mk = sm, sp, "slept waits", MMedianSlept
		}
		lim := results.Limit{Figure: "futex/c-futex median (" + which + ")", Rounds: results.RoundRatios(aware, ref, mk), Limit: schedMedianMax, AtMost: true, Unit: "x"}
		noise := "not measured (no futex-raw)"
		if raw != nil {
			if n := roundNoise(raw, ref, mk, len(lim.Rounds)); n != nil {
				lim.Noise, lim.NoiseOf = n, "futex-raw/c-futex's distance from 1"
				noise = "futex-raw/c-futex's distance from 1 per round"
			}
		}
		part += "; p99 shown, not judged; noise: " + noise
		why := fmt.Sprintf("futex / c-futex median on the %s %.2fx (limit %.2fx; rule: the median of the rounds' ratios, each with its noise: %s); p99 %.2fx, not judged", which, med, schedMedianMax, noise, p99)
		return true, []results.Limit{lim}, part, why
	})
}

// roundNoise is |x/ref - 1| round by round for metric: how far a
// configuration that should match ref sits from it in each round; nil
// unless it has n rounds paired with ref's.
func roundNoise(x, ref *results.Config, metric string, n int) []float64 {
	r := results.RoundRatios(x, ref, metric)
	if len(r) != n || len(x.Rounds) != len(ref.Rounds) {
		return nil
	}
	out := make([]float64, n)
	for i, v := range r {
		out[i] = math.Abs(v - 1)
	}
	return out
}

// sleptRatios is aware's median and p99 over ref's, on the waits that
// slept; ok is false unless both have them.
func sleptRatios(aware, ref *results.Config) (med, p99 float64, ok bool) {
	am, ap := aware.Summary[MMedianSlept], aware.Summary[MP99Slept]
	rm, rp := ref.Summary[MMedianSlept], ref.Summary[MP99Slept]
	if am > 0 && ap > 0 && rm > 0 && rp > 0 {
		return am / rm, ap / rp, true
	}
	return 0, 0, false
}

// SchedShareNotes is the Go scheduler's share of a wake as a figure, one
// line per placement that has futex and c-futex: what the latency table
// prints under itself (the claim judges the same ratios).
func SchedShareNotes(lat *results.Experiment) []string {
	var out []string
	for _, p := range placementsOf(lat) {
		if part, _, _, ok := schedShare(lat, p); ok {
			out = append(out, "the Go scheduler's share of a wake, "+p+": "+part)
		}
	}
	return out
}

// schedShare: at placement p, futex's median and p99 as ratios to
// c-futex's, and the text that shows them with futex-raw's and
// futex-plain's; ok is false without both futex and c-futex.
func schedShare(lat *results.Experiment, p string) (text string, med, p99 float64, ok bool) {
	aware, ref := findConfig(lat, parkers.NameFutex, p), findConfig(lat, ImplCFutex, p)
	if aware == nil || ref == nil || ref.Summary[results.MMedian] <= 0 || ref.Summary[results.MP99] <= 0 {
		return "", 0, 0, false
	}
	ratios := func(x *results.Config) (med, p99 float64) {
		return x.Summary[results.MMedian] / ref.Summary[results.MMedian], x.Summary[results.MP99] / ref.Summary[results.MP99]
	}
	med, p99 = ratios(aware)
	text = fmt.Sprintf("futex median %s (%.2fx c-futex), p99 %s (%.2fx)",
		fmtNs(aware.Summary[results.MMedian]), med, fmtNs(aware.Summary[results.MP99]), p99)
	for _, other := range []string{parkers.NameFutexRaw, parkers.NameFutexPlain} {
		if x := findConfig(lat, other, p); x != nil && x.Summary[results.MMedian] > 0 {
			m, q := ratios(x)
			text += fmt.Sprintf("; %s median %.2fx c-futex, p99 %.2fx", other, m, q)
		}
	}
	// The same ratios over the waits that slept only: the overall median
	// moves with the share of waits that did not (MMedianSlept).
	if sm, sp, ok := sleptRatios(aware, ref); ok {
		text += fmt.Sprintf("; slept waits only: futex median %.2fx c-futex, p99 %.2fx", sm, sp)
	}
	return text, med, p99, true
}

// schedStealsRounds is the traced parts E12-sched-steals needs to show
// its spread (results.Limit.MinRounds): the default run's three. A file
// with one traced round (taken before the round was split, or with
// --rounds=1) is near its limit by rule: one traced round read futex's
// steals at 0.019x futex-plain's in one default run on the AMD EPYC
// f25m17 guest and at 0.144x in the next, minutes later (load 10-18).
const schedStealsRounds = 3

// ClaimSchedSteals: per placement with futex-plain and futex and their
// traced rounds, the steals per round trip of each. Judged where both wake
// across CPUs: sysmon steals the P of a thread it finds in its syscall
// after 10 ms of a still schedtick, and on one CPU a wait is a switch of
// about 1 µs that sysmon's 20 µs tick practically never catches (0 steals
// for futex-plain at same-core on the 2-vCPU KVM guest, where cross-core
// it lost its P on 0.6 per round trip): nothing for the keep-alive to
// remove, shown but not judged.
//
// Decided on the traced round's parts (sched.go: one per measured round),
// each a results.Limit round: futex-plain's steals per round trip at least
// plainStealsMin, futex's over futex-plain's part by part at most
// keptStealsRatio; near its limit when the parts straddle a limit or are
// fewer than schedStealsRounds. A placement where either ran while other
// processes used over half the CPU (results.Foreign.Busy) is left out and
// named: a waiter that waits for a CPU outlasts sysmon's 10 ms and loses
// its P with or without the keep-alive (futex's steals 0-0.0002 per round
// trip in the quiet AMD runs, 0.016-0.045 in the loaded ones).
func ClaimSchedSteals(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimE12SchedSteals, Statement: stmtSchedSteal, Verdict: results.NotEvaluated}
	rule := fmt.Sprintf("rule: per placement across CPUs, on each part of the traced round, futex-plain's steals per round trip at least %.3f and futex's at most %.0f%% of futex-plain's, decided on the median over parts and near its limit when the parts straddle it or are fewer than %d; a placement with other processes on over %.0f%% of the CPU is left out",
		plainStealsMin, 100*keptStealsRatio, schedStealsRounds, 100*results.ClaimBusyForeign)
	c = perPlacement(c, lat, "needs futex-plain and futex at one placement, both waking across CPUs, with --sched-counts, and other processes on at most "+fmt.Sprintf("%.0f%%", 100*results.ClaimBusyForeign)+" of the CPU", func(p string) (bool, []results.Limit, string, string) {
		plain, kept := findConfig(lat, parkers.NameFutexPlain, p), findConfig(lat, parkers.NameFutex, p)
		if plain == nil || kept == nil {
			return false, nil, "", ""
		}
		ps, ok1 := plain.Summary[MSchedSteals]
		ks, ok2 := kept.Summary[MSchedSteals]
		if !ok1 || !ok2 {
			return false, nil, "", ""
		}
		if !acrossCPUs(plain) || !acrossCPUs(kept) {
			return false, nil, fmt.Sprintf("not judged (one CPU for some or all wakes%s): steals/rt futex-plain %.3f, futex %.3f", sameCPUNote(plain), ps, ks), ""
		}
		if f := results.Busiest(plain, kept); f != nil {
			return false, nil, fmt.Sprintf("not judged (%s: a waiter waiting for a CPU loses its P with or without the keep-alive): steals/rt futex-plain %.3f, futex %.3f", f.BusyText(), ps, ks), ""
		}
		part := fmt.Sprintf("steals/rt futex-plain %.3f, futex %.3f; sysmon switches/rt %.3f vs %.3f; Gosched/rt futex %.4f",
			ps, ks, plain.Summary[MCtxSwSysmon], kept.Summary[MCtxSwSysmon], kept.Summary[MSchedGosched])
		plainRounds := results.RoundValues(plain, MSchedSteals)
		parts := "1 traced part"
		if len(plainRounds) != 1 {
			parts = fmt.Sprintf("%d traced parts", len(plainRounds))
		}
		why := fmt.Sprintf("steals/rt futex-plain %.3f (want >= %.3f), futex %.3f (want <= %.0f%% of it), over %s", ps, plainStealsMin, ks, 100*keptStealsRatio, parts)
		if ps < plainStealsMin {
			why = fmt.Sprintf("futex-plain lost its P on %.3f waits per round trip over %s (want >= %.3f): sysmon's retake did not fire, nothing for the keep-alive to remove", ps, parts, plainStealsMin)
		}
		limits := []results.Limit{{Figure: "futex-plain steals/rt", Rounds: plainRounds, Limit: plainStealsMin, MinRounds: schedStealsRounds}}
		if ps >= plainStealsMin {
			limits = append(limits, results.Limit{Figure: "futex/futex-plain steals", Rounds: results.RoundRatios(kept, plain, MSchedSteals), Limit: keptStealsRatio, AtMost: true, MinRounds: schedStealsRounds})
		}
		return true, limits, part, why
	})
	c.Evidence = rule + "; " + c.Evidence
	return c
}
