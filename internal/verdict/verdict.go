// Package verdict is the one vocabulary of a comparison's answer for a
// figure, base against new, and its one rendering: compare (one recorded
// run against another) and the gate (parkbench ab: trials until decided)
// both answer in it, and both render it here, so a regression reads the
// same in either's text and markdown.
//
// The two tools' rules differ (docs/gate.md), and where they do their words
// differ too: compare's "no change" (within its threshold, or not told
// apart from the rounds' noise) is weaker than the gate's "same" (a change
// of the minimum effect or more is excluded), and compare's "not compared"
// (nothing to compare: a zero base, no floor) is final where the gate's
// "unknown" waits for more trials. The words are the ones users have read
// in both tools' output since they were written.
package verdict

import (
	"fmt"
	"strings"
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
	switch v {
	case Slower:
		if md {
			return "**slower** ❌"
		}
		return "SLOWER"
	case Faster:
		if md {
			return "**faster** ✅"
		}
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
	for _, v := range always {
		parts = append(parts, fmt.Sprintf("%d %s", count(v), v))
	}
	for _, v := range ifAny {
		if n := count(v); n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, v))
		}
	}
	return strings.Join(parts, ", ")
}
