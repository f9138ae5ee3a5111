// Package claimtest is the claim tests' kit: a claim found by its ID, the
// verdict a test wants with the kit's rules for a claim's text checked
// beside it, and a synthetic configuration's rounds. Every experiment's
// claim tests use it, so that the rules for a claim are checked the same
// way everywhere (internal/claim is the kit the claims themselves use).
package claimtest

import (
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// Find is the claim with id in cs; the test stops if there is none (a
// test that wants a claim absent uses results.FindClaim).
func Find(t testing.TB, cs []results.Claim, id string) results.Claim {
	t.Helper()
	c, ok := results.FindClaim(cs, id)
	if !ok {
		t.Fatalf("no claim %s among %d", id, len(cs))
	}
	return c
}

// Want checks that c's verdict is want (what names the case), and the
// rules every claim keeps whatever its verdict: an ID, a statement and
// evidence; and a reason (Why) in one line exactly when the verdict is
// not a clear hold, since the summary prints it beside the ID.
func Want(t testing.TB, what string, c results.Claim, want string) {
	t.Helper()
	if c.Verdict != want {
		t.Errorf("%s: verdict %q, want %q (evidence: %s)", what, c.Verdict, want, c.Evidence)
	}
	if c.ID == "" || c.Statement == "" || c.Evidence == "" {
		t.Errorf("%s: incomplete claim %+v", what, c)
	}
	if (c.Verdict != results.Holds || c.Near) != (c.Why != "") || strings.Contains(c.Why, "\n") {
		t.Errorf("%s: verdict %q near %v with why %q: want one line exactly when it is not a clear hold", what, c.Verdict, c.Near, c.Why)
	}
}

// Rounds gives c one round per value of metric, in place of the rounds it
// had, and the median of the values as its summary's figure; it returns c.
func Rounds(c *results.Config, metric string, vs ...float64) *results.Config {
	c.Rounds = nil
	for _, v := range vs {
		c.Rounds = append(c.Rounds, results.Round{Metrics: map[string]float64{metric: v}})
	}
	if c.Summary == nil {
		c.Summary = map[string]float64{}
	}
	c.Summary[metric] = stats.Median(vs)
	return c
}
