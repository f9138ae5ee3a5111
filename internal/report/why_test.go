package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// The summary prints a failed claim's one-line reason beside its ID, or
// its evidence when it has no Why.
func TestSummaryPrintsWhy(t *testing.T) {
	f := &results.File{Experiments: []*results.Experiment{{Name: "latency", Claims: []results.Claim{
		{ID: "E12-really-slept", Verdict: results.DoesNotHold, Evidence: "...", Why: "15.0% of c-futex/cross-core's waits never slept"},
		{ID: "E12-same-order", Verdict: results.DoesNotHold, Evidence: "..."},
	}}}}
	var b bytes.Buffer
	renderSummary(&b, f, false)
	for _, want := range []string{"does not hold: E12-really-slept: 15.0% of c-futex/cross-core's waits never slept\n", "does not hold: E12-same-order: ...\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
}

// The summary stays one screen (its title and summaryBudget lines) however
// many claims fail: seven experiments with three failed claims each, each
// with a two-line reason, give their figures while they fit and name the
// rest; every failed claim is in it by name. Two experiments with two
// failed claims each give all four with their figures.
func TestSummaryFitsOneScreen(t *testing.T) {
	long := strings.Repeat("a figure and its limit, ", 8)
	file := func(exps, claims int) *results.File {
		f := &results.File{}
		for e := range exps {
			x := &results.Experiment{Name: fmt.Sprintf("exp%d", e)}
			for c := range claims {
				x.Claims = append(x.Claims, results.Claim{ID: fmt.Sprintf("exp%d-claim%d", e, c), Verdict: results.DoesNotHold, Evidence: "...", Why: long})
			}
			f.Experiments = append(f.Experiments, x)
		}
		return f
	}
	var b bytes.Buffer
	renderSummary(&b, file(7, 3), false)
	text := strings.TrimSuffix(b.String(), "\n\n")
	if n := strings.Count(text, "\n") + 1; n > 25 {
		t.Errorf("summary of 21 failed claims: %d lines, want at most 25 (one screen):\n%s", n, text)
	}
	flat := strings.Join(strings.Fields(text), " ")
	for e := range 7 {
		for c := range 3 {
			if id := fmt.Sprintf("exp%d-claim%d", e, c); !strings.Contains(flat, id) {
				t.Errorf("summary does not name %s:\n%s", id, text)
			}
		}
	}
	if !strings.Contains(flat, "(-v: each with its figure)") {
		t.Errorf("summary names no claim without its figure:\n%s", text)
	}
	b.Reset()
	renderSummary(&b, file(2, 2), false)
	if got := strings.Count(b.String(), ": "+long[:20]); got != 4 || strings.Contains(b.String(), "-v: each") {
		t.Errorf("two experiments of two failed claims: %d given with their figure, want 4:\n%s", got, b.String())
	}
}
