package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

// The Go scheduler's share of a wake as the notes under the latency table
// give it (E12-sched-share judges the same ratios, sched_claims.go).

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
