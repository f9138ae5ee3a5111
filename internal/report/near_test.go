package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

// A claim decided near its limit is counted so in the summary's tally and
// said under the claim, with its rounds (the summary gives, with its
// figure, only a claim that does not hold); bimodality is said once per code, as a numbered
// footnote naming each configuration, and --verbose keeps each
// configuration's text.
func TestNearAndModeSummary(t *testing.T) {
	bim := func(key, code string, figure float64, text string) *results.Config {
		c := &results.Config{Key: key, Impl: strings.Split(key, "/")[0], Summary: map[string]float64{results.MMedian: 1000}}
		c.Warn(results.Warning{Code: code, Figure: figure, Text: text})
		return c
	}
	e := &results.Experiment{Name: "latency", Configs: []*results.Config{
		bim("futex/cross-core", results.WarnBimodalNoSleep, 0.13, "bimodal: 87% of samples around 20.38 µs, 13% of samples around 267 ns; the median of rounds is one regime's, not a typical wake; 13% of waits never slept (their samples are the short ones)"),
		bim("std/cross-core", results.WarnBimodalNoSleep, 0.23, "bimodal: 86% of samples around 26.40 µs, 14% of samples around 381 ns; the median of rounds is one regime's, not a typical wake; 23% of waits never slept (their samples are the short ones)"),
		bim("pthread/same-core", results.WarnBimodalMechanism, 0, "bimodal: 60% of samples around 0.88 µs, 40% around 2.3 µs; unpinned, but the threads kept to one placement: the modes are the mechanism's own"),
		bim("spin-1line/cross-core", results.WarnBimodalRounds, 0, "bimodal: 66% of samples around 86 ns (rounds 2, 3), 34% of samples around 286 ns (round 1); the median of rounds is one regime's, not a typical wake"),
	}, Claims: []results.Claim{
		{ID: "E12-sched-share", Statement: "s", Verdict: results.Holds, Near: true, Margin: "cross-core p99: rounds 1.17x, 1.08x, 1.12x against at most 1.15x"},
		{ID: "lock-x", Statement: "s", Verdict: results.DoesNotHold, Why: "2.54 ms > 2 ms", Near: true, Margin: "rounds 2.54, 1.70, 2.20 ms against at most 2.00 ms"},
	}}
	f := &results.File{Format: results.Format, Version: results.Version, Experiments: []*results.Experiment{e}}
	var b bytes.Buffer
	if err := Render(&b, f, "table", Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"claims: 1 hold, 1 do not, 0 not evaluated (2 near its limit)",
		"why: cross-core p99: rounds 1.17x, 1.08x, 1.12x against at most 1.15x",
		"does not hold, near its limit: lock-x: 2.54 ms > 2 ms; near its limit: rounds 2.54",
		"claim E12-sched-share: HOLDS, NEAR ITS LIMIT",
		"latency (warnings [1] [2] [3])",
		"[1] bimodal where waits returned without sleeping",
		"latency (2): futex/cross-core 13%, std/cross-core 23%",
		"[2] bimodal with the threads kept to one placement: the modes are the mechanism's own paths: latency pthread/same-core",
		"[3] bimodal because rounds landed in different regimes",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out), " "), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "holds, near its limit: E12-sched-share") {
		t.Errorf("the summary gives a claim that holds near its limit a line of its own:\n%s", out)
	}
	if strings.Contains(out, "warning: futex/cross-core: bimodal") {
		t.Errorf("a bimodal warning per configuration without --verbose:\n%s", out)
	}
	b.Reset()
	if err := Render(&b, f, "table", Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "latency futex/cross-core: bimodal: 87% of samples") {
		t.Errorf("--verbose lost the per-configuration text:\n%s", b.String())
	}
}

// A run of one implementation cannot decide the claims that compare
// several: without --verbose they take one line, not a block each.
func TestUndecidedClaimsOneLine(t *testing.T) {
	e := &results.Experiment{Name: "latency", Claims: []results.Claim{
		{ID: "a", Statement: "s", Verdict: results.DoesNotHold, Why: "w"},
		{ID: "b", Statement: "s", Verdict: results.NotEvaluated, Evidence: "needs x"},
		{ID: "c", Statement: "s", Verdict: results.NotEvaluated, Evidence: "needs y"},
		{ID: "d", Statement: "s", Verdict: results.NotEvaluated, Evidence: "needs z"},
	}}
	f := &results.File{Format: results.Format, Version: results.Version, Experiments: []*results.Experiment{e}}
	var b bytes.Buffer
	if err := Render(&b, f, "table", Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "not evaluated: b, c, d:") || strings.Contains(out, "claim b:") || !strings.Contains(out, "claim a: DOES NOT HOLD") {
		t.Errorf("want a, and b, c, d on one line:\n%s", out)
	}
	b.Reset()
	if err := Render(&b, f, "table", Options{Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "claim b: NOT EVALUATED") {
		t.Errorf("--verbose: each claim:\n%s", b.String())
	}
	// The claims a busy machine left undecided are not said to need
	// another run's implementations: a line of their own, with the cause.
	busy := "cannot judge: every figure ran with other processes on over 50% of the CPU (up to 75%, 2 left out)"
	e.Claims = append(e.Claims, results.Claim{ID: "e", Statement: "s", Verdict: results.NotEvaluated, Why: busy},
		results.Claim{ID: "f", Statement: "s", Verdict: results.NotEvaluated, Why: busy})
	b.Reset()
	if err := Render(&b, f, "table", Options{}); err != nil {
		t.Fatal(err)
	}
	if out := strings.Join(strings.Fields(b.String()), " "); !strings.Contains(out, "not evaluated: b, c, d: each compares") ||
		!strings.Contains(out, "not evaluated: e, f: cannot judge: every figure ran with other processes on over 50% of the CPU (--verbose has each)") {
		t.Errorf("busy claims on a line of their own:\n%s", b.String())
	}
}
