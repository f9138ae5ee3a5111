package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
)

// oneScreen is a latency run as `parkbench run` measures it: sleeping
// parkers and their C floor across CPUs (c-futex with its anatomy), busy
// waiting, a claim that does not hold and one coded warning.
func oneScreen() *results.File {
	cfg := func(impl string, sleeps bool, kind string, wake float64) *results.Config {
		return &results.Config{Key: impl + "/cross-core", Impl: impl, Kind: kind, Placement: "cross-core",
			Params:  map[string]string{"gap": "0s", "sleeps": map[bool]string{true: "true", false: "false"}[sleeps], "participants": "threads"},
			Summary: map[string]float64{"wake_median_ns": wake, results.MMedian: wake / 10, "no_sleep_fraction": 0.8}}
	}
	floor := cfg("c-futex", true, "c-reference", 10_800)
	floor.Summary[anatomy.MedianKey(anatomy.IdleExit)] = 7_000
	floor.Summary[anatomy.MedianKey(anatomy.Call)] = 1_500
	floor.Warn(results.Warning{Code: results.WarnBimodalNoSleep, Figure: 0.8, Text: "bimodal: ...; 80% of waits never slept"})
	spin := cfg("c-spin", false, "c-reference", 80)
	spin.Summary["no_sleep_fraction"] = 0
	e := &results.Experiment{Name: "latency",
		Metrics: []results.MetricSpec{{Key: "wake_median_ns", Header: "median", Unit: results.UnitMicros, Better: results.Lower, Main: true, Floor: "c-futex"}},
		Configs: []*results.Config{cfg("futex", true, "thread", 11_200), cfg("lot", true, "lot", 12_000), floor, spin},
		Claims: []results.Claim{
			{ID: "E12-same-order", Statement: "s", Verdict: results.Holds},
			{ID: "E12-really-slept", Statement: "s", Verdict: results.DoesNotHold, Why: "futex/cross-core no-sleep share 80.0%, limit at most 1.0% (rounds 80.0% 79.0% 81.0%)"},
		},
		Notes: []string{"a note the one-screen view leaves to -v"}}
	return &results.File{Format: results.Format, Version: results.Version, Experiments: []*results.Experiment{e}}
}

// The summary opens each experiment with its headline sentence: the
// question's answer, its figure, and where the time goes when the anatomy
// ran; a claim that does not hold with its figure and limit.
func TestHeadlineSentence(t *testing.T) {
	lines := SummaryLines(oneScreen())
	got := lines[0].Text
	for _, want := range []string{
		"latency: a wake across CPUs costs about 10.8 µs here (c-futex), 7.00 µs of it the CPU leaving idle",
		"the Go parkers 11.2 µs (futex) .. 12.0 µs (lot)", "busy waiting 80 ns",
		"80% of c-futex's waits did not sleep", "claims: 1 hold, 1 do not, 0 not evaluated [1]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
	if len(lines[0].Sub) != 1 || lines[0].Sub[0] != "does not hold: E12-really-slept: futex/cross-core no-sleep share 80.0%, limit at most 1.0%" {
		t.Errorf("sub %q: want the figure and the limit", lines[0].Sub)
	}
}

// run's view (Brief): the claims in one line by verdict, no notes, no
// runtime line; -v brings them back.
func TestBriefView(t *testing.T) {
	var b bytes.Buffer
	if err := Render(&b, oneScreen(), "table", Options{Brief: true}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"claims: holds: E12-same-order; does not hold: E12-really-slept (-v:", "[1] bimodal where waits"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, not := range []string{"note: a note", "runtime:", "claim E12-same-order: HOLDS"} {
		if strings.Contains(out, not) {
			t.Errorf("%q in the brief view:\n%s", not, out)
		}
	}
	b.Reset()
	if err := Render(&b, oneScreen(), "table", Options{Brief: true, Verbose: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "note: a note") || !strings.Contains(b.String(), "claim E12-same-order: HOLDS") {
		t.Errorf("-v lost the notes or the claims:\n%s", b.String())
	}
}
