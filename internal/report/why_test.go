package report

import (
	"bytes"
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
