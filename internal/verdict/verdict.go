// Package verdict is the one vocabulary of a comparison's answer for a
// figure, base against new, and its one rendering: compare (one recorded
// run against another) and the gate (parkbench ab: trials until decided)
// both answer in it, and both render it here, so a regression reads the
// same in either's text and markdown.
//
// The two tools' rules differ (docs/gate.md), and where they do their words
// differ too (each verdict's comment says whose it is and when):
// compare's "no change" is weaker than the gate's "same", and compare's
// "not compared" is final where the gate's "unknown" waits for more
// trials. The words are the ones users have read in both tools' output
// since they were written.
package verdict

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
)

// A Verdict is the answer for one figure; its string is what the tools
// print and write to JSON.
type Verdict string

// The verdicts.
const (
	Faster Verdict = "faster"
	Slower Verdict = "slower" // a regression: fails compare's result and the gate
	// The gate's: significant but smaller than the minimum effect, or
	// its interval excludes the minimum effect in the bad direction.
	Same Verdict = "same"
	// Compare's: within the threshold, or not out of the rounds' noise.
	NoChange Verdict = "no change"
	// The gate's: not decided (more trials, up to the maximum), or no
	// ratio (a median zero or missing).
	Unknown Verdict = "unknown"
	// Compare's: nothing to compare (a zero base figure, no floor across
	// machines).
	NotCompared Verdict = "not compared"
)

// Cell is v as a table cell: a regression stands out in capitals in text
// and in bold with a cross in markdown; an improvement in bold with a tick
// in markdown; the others as their words.
func (v Verdict) Cell(md bool) string {
	switch {
	case v == Slower && md:
		return "**slower** ❌"
	case v == Slower:
		return "SLOWER"
	case v == Faster && md:
		return "**faster** ✅"
	}
	return string(v)
}

// Count is how many of rows have the verdict v, read by of.
func Count[R any](rows []R, v Verdict, of func(R) Verdict) int {
	n := 0
	for _, r := range rows {
		if of(r) == v {
			n++
		}
	}
	return n
}

// Tally is the counts as a phrase, "3 slower, 0 faster, 2 no change":
// each of always with its count, then each of ifAny that some row has.
func Tally(count func(Verdict) int, always, ifAny []Verdict) string {
	var parts []string
	for i, v := range append(slices.Clip(always), ifAny...) {
		if n := count(v); i < len(always) || n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	return strings.Join(parts, ", ")
}

// UTest is the two-sided Mann-Whitney U test's p-value for base against
// new, the one path both tools reach it by: benchstat's own test
// (x/perf benchmath.AssumeNothing, which runs go-moremath's: the exact U
// distribution for small samples without ties, the normal approximation
// with a tie correction otherwise). 1 when a side is empty or the samples
// are all equal: nothing tells them apart.
func UTest(base, new []float64) float64 {
	if len(base) == 0 || len(new) == 0 {
		return 1
	}
	th := benchmath.DefaultThresholds
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(base), &th), benchmath.NewSample(slices.Clone(new), &th))
	return math.Min(1, c.P)
}

// MinP is the smallest two-sided p the U test can give with n1 and n2
// distinct values, 2 / C(n1+n2, n1) capped at 1 (1 when a side is empty):
// 0.10 for 3+3, 0.029 for 4+4, 0.008 for 5+5 (benchmath says as much: how
// many samples a confidence needs).
func MinP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n2; i++ {
		c = c * float64(n1+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Delta is the change column of a comparison, as benchstat writes it:
// "~" when nothing significant changed (no change, same), else the change
// in percent ("+12.3%"); "-" when there is none to show.
func Delta(v Verdict, change float64) string {
	switch {
	case v == NoChange || v == Same:
		return "~"
	case math.IsNaN(change) || math.IsInf(change, 0):
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*change)
}
