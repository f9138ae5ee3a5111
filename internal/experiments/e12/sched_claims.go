package e12

import (
	"fmt"
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
	stmtSchedShare = "the Go scheduler's share of a wake is small: the scheduler-aware futex wait is within 1.10x of c-futex at the median and 1.15x at p99 (futex-raw, the bypass, for scale)"
	stmtSchedSteal = "the mechanism: a parked thread that never passes through the scheduler has its P stolen by sysmon (futex-plain, >= 0.002 steals per round trip; up to one per wait once waits outlast sysmon's 20 us tick), and the keep-alive Gosched removes them (futex, <= 1/10 of futex-plain's)"
)

const (
	schedMedianMax = 1.10
	schedP99Max    = 1.15
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
// reports whether the placement has what the claim needs, and if so whether
// it holds there and the evidence. No placement with what it needs leaves
// c not evaluated, with missing as the evidence.
func perPlacement(c results.Claim, lat *results.Experiment, missing string, check func(p string) (applies, holds bool, evidence string)) results.Claim {
	holds, n := true, 0
	var parts []string
	for _, p := range placementsOf(lat) {
		applies, ok, part := check(p)
		if !applies {
			continue
		}
		n++
		holds = holds && ok
		parts = append(parts, p+": "+part)
	}
	if n == 0 {
		c.Evidence = missing
		return c
	}
	c.Verdict = verdict(holds)
	c.Evidence = strings.Join(parts, "; ")
	return c
}

// ClaimSchedShare: per placement with both futex and c-futex, the median and
// p99 ratios of futex to c-futex, with futex-raw's and futex-plain's beside
// them.
func ClaimSchedShare(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimE12SchedShare, Statement: stmtSchedShare, Verdict: results.NotEvaluated}
	return perPlacement(c, lat, "needs futex and c-futex at one placement", func(p string) (bool, bool, string) {
		part, med, p99, ok := schedShare(lat, p)
		return ok, med <= schedMedianMax && p99 <= schedP99Max, part
	})
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
	am, ap := aware.Summary[MMedianSlept], aware.Summary[MP99Slept]
	rm, rp := ref.Summary[MMedianSlept], ref.Summary[MP99Slept]
	if am > 0 && ap > 0 && rm > 0 && rp > 0 {
		text += fmt.Sprintf("; slept waits only: futex median %.2fx c-futex, p99 %.2fx", am/rm, ap/rp)
	}
	return text, med, p99, true
}

// ClaimSchedSteals: per placement with futex-plain and futex and their
// traced rounds, the steals per round trip of each.
func ClaimSchedSteals(lat *results.Experiment) results.Claim {
	c := results.Claim{ID: ClaimE12SchedSteals, Statement: stmtSchedSteal, Verdict: results.NotEvaluated}
	return perPlacement(c, lat, "needs futex-plain and futex at one placement, with --sched-counts", func(p string) (bool, bool, string) {
		plain, kept := findConfig(lat, parkers.NameFutexPlain, p), findConfig(lat, parkers.NameFutex, p)
		if plain == nil || kept == nil {
			return false, false, ""
		}
		ps, ok1 := plain.Summary[MSchedSteals]
		ks, ok2 := kept.Summary[MSchedSteals]
		if !ok1 || !ok2 {
			return false, false, ""
		}
		part := fmt.Sprintf("steals/rt futex-plain %.3f, futex %.3f; sysmon switches/rt %.3f vs %.3f; Gosched/rt futex %.4f",
			ps, ks, plain.Summary[MCtxSwSysmon], kept.Summary[MCtxSwSysmon], kept.Summary[MSchedGosched])
		return true, ps >= plainStealsMin && ks <= keptStealsRatio*ps, part
	})
}
