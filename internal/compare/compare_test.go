package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
	"github.com/parkbench/parkbench/internal/verdict"
)

// suite is a suite file without histograms (compare reads none; their
// encoding was most of this package's test time under -race).
func suite(s resultstest.Spec) *results.File {
	s.Samples, s.NoHistograms = 200, true
	return resultstest.Suite(s)
}

func run(t *testing.T, base, nw *results.File) *Result {
	t.Helper()
	r, err := Compare(results.Named{Name: "base.json", File: base}, results.Named{Name: "new.json", File: nw}, DefaultOptions)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func verdicts(r *Result) map[verdict.Verdict]int {
	m := map[verdict.Verdict]int{}
	for _, row := range r.Rows {
		m[row.Verdict]++
	}
	return m
}

// centreVerdicts counts the verdicts of the centre figures only (medians,
// ns/pair, herd times): a p99 from a few hundred synthetic samples is itself
// noisy enough that 3+3 rounds separate by chance (1 in 10 per row), which
// is the rule's documented limit, not what these tests check.
func centreVerdicts(r *Result) map[verdict.Verdict]int {
	m := map[verdict.Verdict]int{}
	for _, row := range r.Rows {
		if row.Metric != results.MP99 {
			m[row.Verdict]++
		}
	}
	return m
}

func TestRegression(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	slow := suite(resultstest.Spec{Spread: 0.03, Seed: 2, Scale: 1.5})
	r := run(t, base, slow)
	if !r.Regressed() || r.CrossMachine {
		t.Fatalf("no regression found: %v", verdicts(r))
	}
	for _, row := range r.Rows {
		if row.Metric == results.MMedian && row.Verdict != verdict.Slower {
			t.Errorf("%s %s median: %s (%s)", row.Experiment, row.Config, row.Verdict, row.Reason)
		}
		if row.Experiment == "latency" && row.Verdict == verdict.Slower && !strings.Contains(row.Reason, "cannot go below p=0.10") {
			t.Errorf("3+3 rounds: reason %q does not say the U test is limited", row.Reason)
		}
		if row.Experiment == "herd" && row.Verdict == verdict.Slower && !strings.Contains(row.Reason, "p=0.008") {
			t.Errorf("5+5 repeats: reason %q does not give the U test's p", row.Reason)
		}
	}
	var buf bytes.Buffer
	if err := Render(&buf, []*Result{r}, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "**REGRESSION") || !strings.Contains(buf.String(), "#### latency") {
		t.Fatalf("markdown:\n%s", buf.String())
	}
}

func TestFaster(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	fast := suite(resultstest.Spec{Spread: 0.03, Seed: 2, Scale: 0.6})
	r := run(t, base, fast)
	if r.Regressed() {
		t.Fatalf("a faster run regressed: %v", verdicts(r))
	}
	for _, row := range r.Rows {
		if row.Metric == results.MMedian || row.Metric == results.MNsPerPair || row.Metric == results.MFirstNs {
			if row.Verdict != verdict.Faster {
				t.Errorf("%s %s %s: %s (%s)", row.Experiment, row.Config, row.Label, row.Verdict, row.Reason)
			}
		}
	}
}

// Differences beyond the threshold that the rounds' own spread explains are
// noise: no change.
func TestNoiseIsNoChange(t *testing.T) {
	longtest.Skip(t)
	base := suite(resultstest.Spec{Spread: 0.25, Seed: 1})
	for seed := uint64(2); seed < 6; seed++ {
		nw := suite(resultstest.Spec{Spread: 0.25, Seed: seed, Scale: 1.05})
		r := run(t, base, nw)
		for _, row := range r.Rows {
			if row.Verdict == verdict.NoChange {
				continue
			}
			apart := row.New.Min > row.Base.Max || row.New.Max < row.Base.Min
			if row.MinP >= 0.05 && !apart {
				t.Errorf("seed %d %s %s %s: %s with overlapping rounds", seed, row.Experiment, row.Config, row.Label, row.Verdict)
			}
		}
	}
	// Same figures, other samples (noise only): no change.
	base = suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	same := suite(resultstest.Spec{Spread: 0.03, Seed: 3})
	if v := centreVerdicts(run(t, base, same)); v[verdict.Slower]+v[verdict.Faster] != 0 {
		t.Errorf("noise only: %v", v)
	}
}

func TestOverlapRule(t *testing.T) {
	opt := DefaultOptions
	b := newStat([]float64{100, 110, 140})
	n := newStat([]float64{120, 130, 150})
	v, reason, p, minP := judge(b, n, n.Median/b.Median, opt)
	if v != verdict.NoChange || !strings.Contains(reason, "overlap") || p < 0.1 || math.Abs(minP-0.1) > 1e-9 {
		t.Fatalf("overlap: %s %q p=%v minP=%v", v, reason, p, minP)
	}
	n = newStat([]float64{150, 151, 152})
	v, _, p, _ = judge(b, n, n.Median/b.Median, opt)
	if v != verdict.Slower || math.Abs(p-0.1) > 1e-9 {
		t.Fatalf("apart: %s p=%v", v, p)
	}
	// One round each: no noise estimate, so a change beyond the threshold
	// is shown, not judged (it was judged slower on the threshold alone);
	// within the threshold it is no change.
	v, reason, _, _ = judge(newStat([]float64{100}), newStat([]float64{130}), 1.3, opt)
	if v != verdict.NotCompared || !strings.Contains(reason, "no noise estimate") {
		t.Fatalf("single: %s %q", v, reason)
	}
	if v, _, _, _ = judge(newStat([]float64{100}), newStat([]float64{70}), 0.7, opt); v != verdict.NotCompared {
		t.Fatalf("single, faster: %s", v)
	}
	if v, _, _, _ = judge(newStat([]float64{100}), newStat([]float64{105}), 1.05, opt); v != verdict.NoChange {
		t.Fatalf("single, within the threshold: %s", v)
	}
	for _, c := range []struct {
		n1, n2 int
		p      float64
	}{{3, 3, 0.1}, {5, 5, 2.0 / 252}, {1, 1, 1}, {4, 4, 2.0 / 70}, {3, 5, 2.0 / 56}} {
		if got := MinP(c.n1, c.n2); math.Abs(got-c.p) > 1e-12 {
			t.Errorf("MinP(%d,%d) = %v, want %v", c.n1, c.n2, got, c.p)
		}
	}
}

// TestCrossMachineFloors: across machine classes each figure is judged as a
// ratio to its floor in the same run (latency c-futex, selfwake syscall,
// herd pthread); without a floor it is shown, not judged.
func TestCrossMachineFloors(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1, Floors: true})
	other := resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4)
	// Twice as fast in raw time, but so is its C floor: no change.
	fast := suite(resultstest.Spec{Machine: other, Spread: 0.03, Seed: 2, Scale: 0.5, Floors: true})
	r := run(t, base, fast)
	if !r.CrossMachine {
		t.Fatal("different machines not noticed")
	}
	v := centreVerdicts(r)
	if v[verdict.Slower]+v[verdict.Faster] != 0 || v[verdict.NoChange] == 0 {
		t.Fatalf("floor verdicts: %v", v)
	}
	for _, row := range r.Rows {
		if row.Metric == results.MMedian && !strings.HasPrefix(row.Config, "c-futex/") && (row.NormBase == nil || row.Ratio > 0.6 || math.Abs(row.NormRatio-1) > 0.15) {
			t.Fatalf("%s %s: raw %.2f floor ratio %.2f", row.Experiment, row.Config, row.Ratio, row.NormRatio)
		}
		if row.Config == "c-futex/cross-core" && row.Verdict != verdict.NotCompared {
			t.Fatalf("the floor judged against itself: %s (%s)", row.Verdict, row.Reason)
		}
		if row.Experiment == "latency" && row.Config == "futex/cross-core" && row.NormBy != "c-futex/cross-core" {
			t.Fatalf("futex/cross-core divided by %q", row.NormBy)
		}
	}
	var buf bytes.Buffer
	RenderWith(&buf, []*Result{r}, "table", RenderOptions{Wide: true})
	out := buf.String()
	if !strings.Contains(out, "DIFFERENT MACHINE CLASSES") || !strings.Contains(out, "floor vs base") {
		t.Fatalf("table:\n%s", out)
	}
	// The floors moved (half the time): each is named with both raw
	// figures and its factor before the result and the verdicts.
	fl, res := strings.Index(out, "floors that moved"), strings.Index(out, "result: ")
	if fl < 0 || fl > res || !regexp.MustCompile(`latency c-futex/cross-core median: [0-9.]+ µs → [0-9.]+ µs, 0\.[45][0-9]×`).MatchString(out) {
		t.Errorf("the floors that moved are not named first, with their factors:\n%s", out)
	}
	// Same raw time on a machine whose C floor is twice as fast: what the
	// Go side adds doubled, slower.
	slow := suite(resultstest.Spec{Machine: other, Spread: 0.03, Seed: 2, FloorScale: 0.5, Floors: true})
	if r := run(t, base, slow); !r.Regressed() {
		t.Fatalf("regression against the floor missed: %v", verdicts(r))
	}
	// No floors: not compared, never a regression.
	nf := suite(resultstest.Spec{Machine: other, Spread: 0.03, Seed: 2, Scale: 3})
	if r := run(t, base, nf); r.Regressed() || r.Count(verdict.NotCompared) != len(r.Rows) {
		t.Fatalf("without floors: %v", verdicts(r))
	}
}

func TestNothingInCommon(t *testing.T) {
	s := resultstest.Spec{Samples: 100}
	lat := resultstest.File(s, resultstest.Latency(s))
	herd := resultstest.File(s, resultstest.Herd(s))
	_, err := Compare(results.Named{Name: "base.json", File: lat}, results.Named{Name: "new.json", File: herd}, DefaultOptions)
	var nc *NothingInCommonError
	if !errors.As(err, &nc) || !strings.Contains(err.Error(), "new.json has nothing in common with base.json") || !strings.Contains(err.Error(), "herd lot/n=1") {
		t.Fatalf("got %v", err)
	}
	// Partly in common: compared, the rest listed.
	r := run(t, resultstest.Suite(s), lat)
	if len(r.OnlyBase) == 0 || len(r.OnlyNew) != 0 || len(r.Rows) == 0 {
		t.Fatalf("only base %v only new %v rows %d", r.OnlyBase, r.OnlyNew, len(r.Rows))
	}
	// Empty experiments, unknown experiments.
	empty := resultstest.File(s)
	if _, err := Compare(results.Named{Name: "a", File: lat}, results.Named{Name: "b", File: empty}, DefaultOptions); err == nil {
		t.Fatal("empty file compared")
	}
	if _, err := Compare(results.Named{Name: "a", File: lat}, results.Named{Name: "b", File: lat}, Options{Threshold: -1, Alpha: 0.05}); err == nil {
		t.Fatal("bad threshold accepted")
	}
}

func TestProbeMovedWarning(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	nw := suite(resultstest.Spec{Spread: 0.03, Seed: 2, ProbeScale: 2})
	r := run(t, base, nw)
	if len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "probe moved") {
		t.Fatalf("warnings %v", r.Warnings)
	}
}

func TestJSON(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	r := run(t, base, base)
	var buf bytes.Buffer
	if err := Render(&buf, []*Result{r}, "json"); err != nil {
		t.Fatal(err)
	}
	var back []Result
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back) != 1 || len(back[0].Rows) != len(r.Rows) {
		t.Fatalf("json: %v", err)
	}
	if err := Render(&buf, nil, "yaml"); err == nil {
		t.Fatal("unknown format accepted")
	}
}

// A side recorded under load (its median configuration's foreign share
// over 5%) is named under the machines, in text and markdown.
func TestLoadWarning(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	nw := suite(resultstest.Spec{Spread: 0.03, Seed: 2})
	for _, e := range base.Experiments {
		for _, c := range e.Configs {
			c.Foreign = &results.Foreign{Fraction: 0.42}
		}
	}
	r := run(t, base, nw)
	if len(r.Load) != 1 || !strings.HasPrefix(r.Load[0], "the base was recorded under load: other processes used 42%") {
		t.Fatalf("load %q", r.Load)
	}
	for _, format := range []string{"table", "markdown"} {
		var b bytes.Buffer
		if err := RenderWith(&b, []*Result{r}, format, RenderOptions{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "recorded under load") {
			t.Errorf("%s: no load warning:\n%s", format, b.String())
		}
	}
	if r := run(t, nw, nw); len(r.Load) != 0 {
		t.Errorf("quiet files: %q", r.Load)
	}
}

// TestCannotJudge: a file that lost its rounds, one with a single round per
// configuration, and one without a figure the other has are judged as far
// as they can be and say what they lack; never a regression. A copy of a
// suite without configs[].rounds once read "REGRESSION: 17 slower".
func TestCannotJudge(t *testing.T) {
	longtest.Skip(t)
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	spoil := map[string]func(f *results.File){
		"no rounds": func(f *results.File) {
			for _, e := range f.Experiments {
				for _, c := range e.Configs {
					c.Rounds = nil
				}
			}
		},
		"one round": func(f *results.File) {
			for _, e := range f.Experiments {
				for _, c := range e.Configs {
					c.Rounds = c.Rounds[:1]
				}
			}
		},
		"no such figure": func(f *results.File) {
			for _, e := range f.Experiments {
				for _, c := range e.Configs {
					delete(c.Summary, results.MMedian)
					for _, r := range c.Rounds {
						delete(r.Metrics, results.MMedian)
					}
				}
			}
		},
	}
	want := map[string]struct{ reason, lacks string }{
		"no rounds":      {"cannot judge: no rounds in the new file", "cannot judge: no rounds: the new file has no per-round figures"},
		"one round":      {"one round on a side: no noise estimate", "have one round on a side"},
		"no such figure": {"cannot judge: no such figure in the new file", "figures one file does not have"},
	}
	for name, f := range spoil {
		for _, scale := range []float64{1.5, 0.6} {
			nw := suite(resultstest.Spec{Spread: 0.03, Seed: 2, Scale: scale})
			f(nw)
			r := run(t, base, nw)
			// Without the medians the other figures are still judged.
			if name != "no such figure" && (r.Failed() || r.Count(verdict.Slower) > 0 || r.Count(verdict.Faster) > 0) {
				t.Errorf("%s, x%g: judged %v; want nothing judged faster or slower", name, scale, verdicts(r))
			}
			seen := false
			for _, row := range r.Rows {
				if name == "no such figure" && row.Metric == results.MMedian && row.Verdict != verdict.NotCompared {
					t.Errorf("%s: %s median judged %s without a new median", name, row.Config, row.Verdict)
				}
				if strings.Contains(row.Reason, want[name].reason) {
					seen = true
					if row.Verdict != verdict.NotCompared {
						t.Errorf("%s: %s %s: %s, want not compared", name, row.Config, row.Label, row.Verdict)
					}
				}
			}
			if !seen {
				t.Errorf("%s, x%g: no row says %q", name, scale, want[name].reason)
			}
			if !slices.ContainsFunc(r.Lacks, func(l string) bool { return strings.Contains(l, want[name].lacks) }) {
				t.Errorf("%s, x%g: lacks %q, want %q", name, scale, r.Lacks, want[name].lacks)
			}
			var buf bytes.Buffer
			if err := Render(&buf, []*Result{r}, "table"); err != nil {
				t.Fatal(err)
			}
			if (name != "no such figure" && strings.Contains(buf.String(), "REGRESSION")) || !strings.Contains(buf.String(), want[name].lacks[:20]) {
				t.Errorf("%s, x%g: the table does not say what the file lacks, or regresses:\n%s", name, scale, buf.String())
			}
			if err := Render(&buf, []*Result{r}, "json"); err != nil {
				t.Errorf("%s: json: %v", name, err)
			}
		}
	}
}

// TestZeroBaseJSON: a zero base figure has no ratio; the JSON says null
// (encoding/json refuses +Inf: compare --format=json failed, exit 1).
func TestZeroBaseJSON(t *testing.T) {
	base := suite(resultstest.Spec{Spread: 0.03, Seed: 1})
	c := base.Experiments[0].Configs[0]
	for _, r := range c.Rounds {
		r.Metrics[results.MMedian] = 0
	}
	c.Summary[results.MMedian] = 0
	r := run(t, base, suite(resultstest.Spec{Spread: 0.03, Seed: 2}))
	var buf bytes.Buffer
	if err := Render(&buf, []*Result{r}, "json"); err != nil {
		t.Fatalf("json: %v", err)
	}
	var back []struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	row := back[0].Rows[0]
	if row["ratio"] != nil || row["verdict"] != string(verdict.NotCompared) {
		t.Errorf("zero base: ratio %v, verdict %v; want null, not compared", row["ratio"], row["verdict"])
	}
	if _, ok := back[0].Rows[1]["norm_ratio"]; ok {
		t.Error("norm_ratio written within one machine class")
	}
}
