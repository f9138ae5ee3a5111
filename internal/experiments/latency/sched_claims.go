package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
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

// ClaimSchedShare: per placement with both futex and c-futex, futex's
// median as a ratio to c-futex's, round by round, at most 1.10x; the p99
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
// Each round's ratio carries the run's noise (claim.Noise): how far apart
// futex-raw (the same futex wait on a Go thread, through RawSyscall, so
// without the scheduler) and c-futex are in the same round. Two waits
// without the scheduler differ only by the conditions of the round, and on
// the AMD EPYC f25m17 guest those moved futex-raw/c-futex to 0.5-1.84x in
// whole runs (futex/c-futex with it: 1.62-1.84x and 1.70-1.91x in one run
// at load 1-4), while on the Intel f6m167 guest it read 1.02-1.03x.
// Without futex-raw the rounds' spread alone decides it, and the evidence
// says the noise was not measured.
var schedShareRule = claim.Rule{ID: ClaimE12SchedShare, Statement: stmtSchedShare, Select: threads,
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
			f := claim.Fig(p+": futex/c-futex median ("+which+")", results.RoundRatios(aware, ref, mk), aware, ref).In("x").AtMost(schedMedianMax)
			note := fmt.Sprintf("p99 %.2fx, not judged", p99)
			if n, pairs := claim.Noise(pairsOf(raw, ref, mk)); pairs > 0 {
				f = f.Noisy(n, "futex-raw and c-futex apart")
			} else {
				note += "; noise not measured (no futex-raw)"
			}
			f = f.With(note)
			if !acrossCPUs(aware) || !acrossCPUs(ref) {
				f = f.Skip("one CPU for some or all wakes" + sameCPUNote(aware))
			}
			out = append(out, f)
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

// pairsOf is x's and ref's metric round by round, none without x.
func pairsOf(x, ref *results.Config, metric string) [][2]float64 {
	if x == nil {
		return nil
	}
	return claim.PairedRounds(x, ref, metric)
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
// its spread (claim.Rule.MinRounds): the default run's three. A file with
// one traced round (taken before the round was split, or with --rounds=1)
// is near its limit by rule: one traced round read futex's steals at
// 0.019x futex-plain's in one default run on the AMD EPYC f25m17 guest and
// at 0.144x in the next, minutes later (load 10-18).
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
// Decided on the traced round's parts (sched.go: one per measured round):
// futex-plain's steals per round trip at least plainStealsMin, futex's
// over futex-plain's part by part at most keptStealsRatio. A placement
// where either ran busy (the kit's busy policy) is left out: a waiter that
// waits for a CPU outlasts sysmon's 10 ms and loses its P with or without
// the keep-alive (futex's steals 0-0.0002 per round trip in the quiet AMD
// runs, 0.016-0.045 in the loaded ones).
var schedStealsRule = claim.Rule{ID: ClaimE12SchedSteals, Statement: stmtSchedSteal, Select: threads, MinRounds: schedStealsRounds,
	Needs: "needs futex-plain and futex at one placement, both waking across CPUs, with --sched-counts",
	How:   "per placement across CPUs, on each part of the traced round, futex-plain's steals per round trip and futex's over futex-plain's",
	Figures: func(cs []*results.Config) (out []claim.Figure) {
		for _, p := range placementsOf(exp(cs)) {
			plain, kept := findConfig(exp(cs), parkers.NameFutexPlain, p), findConfig(exp(cs), parkers.NameFutex, p)
			if plain == nil || kept == nil {
				continue
			}
			ps, ok1 := plain.Summary[MSchedSteals]
			ks, ok2 := kept.Summary[MSchedSteals]
			if !ok1 || !ok2 {
				continue
			}
			note := fmt.Sprintf("sysmon switches/rt %.3f vs %.3f; Gosched/rt futex %.4f", plain.Summary[MCtxSwSysmon], kept.Summary[MCtxSwSysmon], kept.Summary[MSchedGosched])
			figs := []claim.Figure{claim.Fig(p+" futex-plain steals/rt per traced part", results.RoundValues(plain, MSchedSteals), plain, kept).AtLeast(plainStealsMin).With(note)}
			if ps >= plainStealsMin {
				figs = append(figs, claim.Fig(p+" futex/futex-plain steals per traced part", results.RoundRatios(kept, plain, MSchedSteals), plain, kept).In("%").AtMost(keptStealsRatio).
					With(fmt.Sprintf("steals/rt futex-plain %.3f, futex %.3f", ps, ks)))
			}
			for _, f := range figs {
				if !acrossCPUs(plain) || !acrossCPUs(kept) {
					f = f.Skip("one CPU for some or all wakes" + sameCPUNote(plain))
				}
				out = append(out, f)
			}
		}
		return out
	}}
