package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// pb runs parkbench in-process and returns stdout, stderr and the exit
// status execute would give.
func pb(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	root := newRoot()
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	err := root.Execute()
	code := exitOK
	if err != nil {
		var ee exitError
		var ue usageError
		switch {
		case errors.As(err, &ee):
			code = ee.code
		case errors.As(err, &ue) || isCobraUsage(err):
			code = exitUsage
		default:
			code = exitFailed
		}
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

var fixtureDir = filepath.Join("..", "..", "internal", "results", "testdata")

func fixturePath(name string) string { return filepath.Join(fixtureDir, name) }

func writeResult(t *testing.T, dir, name string, f *results.File) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := results.WriteFile(p, f); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReportCommand(t *testing.T) {
	for _, format := range []string{"table", "markdown", "csv", "json", "benchstat"} {
		out, errs, code := pb(t, "report", "--format="+format, fixturePath("v1-suite.json"), fixturePath("v1-timeout.json"))
		if code != 0 || out == "" || errs != "" {
			t.Fatalf("report --format=%s: exit %d, stderr %q", format, code, errs)
		}
	}
}

func TestCompareCommand(t *testing.T) {
	longtest.Skip(t)
	dir := tempDir(t)
	base := writeResult(t, dir, "base.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 1, Samples: 300}))
	same := writeResult(t, dir, "same.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 3, Samples: 300, Scale: 1.03}))
	slow := writeResult(t, dir, "slow.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 2, Samples: 300, Scale: 1.4}))
	fast := writeResult(t, dir, "fast.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 2, Samples: 300, Scale: 0.7}))
	other := resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4)
	floors := writeResult(t, dir, "floors.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 1, Samples: 300, Floors: true}))
	cross := writeResult(t, dir, "cross.json", resultstest.Suite(resultstest.Spec{Machine: other, Spread: 0.03, Seed: 2, Samples: 300, Scale: 0.5, Floors: true}))

	out, _, code := pb(t, "compare", base, same)
	if code != 0 || !strings.Contains(out, "0 slower, 0 faster") {
		t.Fatalf("noise only: exit %d\n%s", code, out)
	}
	out, errs, code := pb(t, "compare", base, slow)
	if code != 1 || !strings.Contains(out, "SLOWER") || !strings.Contains(errs, "regression against") {
		t.Fatalf("regression: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, _, code = pb(t, "compare", "--format=markdown", base, fast)
	if code != 0 || !strings.Contains(out, "**faster** ✅") || strings.Contains(out, "slower**") {
		t.Fatalf("faster: exit %d\n%s", code, out)
	}
	// Threshold: a 40% slowdown is no regression with --threshold=80%.
	if _, _, code := pb(t, "compare", "--threshold=80%", base, slow); code != 0 {
		t.Fatalf("--threshold=80%%: exit %d", code)
	}
	out, _, code = pb(t, "compare", "--wide", floors, cross)
	if code != 0 || !strings.Contains(out, "DIFFERENT MACHINE CLASSES") || !strings.Contains(out, "as a ratio to c-futex/cross-core in the same run") {
		t.Fatalf("cross-machine: exit %d\n%s", code, out)
	}
	// Several NEW files: each against BASE; one regression fails all.
	out, _, code = pb(t, "compare", "--format=json", base, same, slow)
	if code != 1 || strings.Count(out, `"base": "`) != 2 {
		t.Fatalf("several: exit %d", code)
	}
}

// Across machine classes a slower figure is where the machines differ, not
// a regression: exit 0, and the result line says so; within one class the
// same file is a regression (exit 1).
func TestCompareAcrossClassesExit(t *testing.T) {
	dir := tempDir(t)
	base, err := results.ReadFile(filepath.Join("..", "compare", "testdata", "anatomy-amd-f25m17.json"))
	if err != nil {
		t.Fatal(err)
	}
	slowFutex := func(other bool) string {
		f, _ := results.ReadFile(filepath.Join("..", "compare", "testdata", "anatomy-amd-f25m17.json"))
		if other {
			f.Machine.CPUModel, f.Machine.CPUVendor, f.Machine.CPUFamily, f.Machine.CPUModelNumber = "Intel Xeon", "GenuineIntel", 6, 167
			f.Machine.Slug = results.Slug(f.Machine)
		}
		for _, c := range f.Experiments[0].Configs {
			if c.Impl != "futex" {
				continue
			}
			c.Summary[results.MMedian] *= 2
			for _, r := range c.Rounds {
				r.Metrics[results.MMedian] *= 2
			}
		}
		return writeResult(t, dir, fmt.Sprintf("slow-%v.json", other), f)
	}
	b := writeResult(t, dir, "base.json", base)
	out, errs, code := pb(t, "compare", b, slowFutex(true))
	out = strings.Join(strings.Fields(out), " ")
	if code != 0 || strings.Contains(out, "REGRESSION") || !strings.Contains(out, "two machine classes, compared as machines, not code") ||
		!strings.Contains(out, "SLOWER") {
		t.Fatalf("across classes: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, _, code = pb(t, "compare", b, slowFutex(false))
	if code != 1 || !strings.Contains(out, "REGRESSION") {
		t.Fatalf("one class: exit %d\n%s", code, out)
	}
}

func TestResultCommandsBadInput(t *testing.T) {
	dir := tempDir(t)
	s := resultstest.Spec{Samples: 100}
	lat := writeResult(t, dir, "lat.json", resultstest.File(s, resultstest.Latency(s)))
	herd := writeResult(t, dir, "herd.json", resultstest.File(s, resultstest.Herd(s)))
	suite := writeResult(t, dir, "suite.json", resultstest.Suite(s))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "at least one result FILE"},
		{[]string{"report", fixturePath("bad-not-json.json")}, "bad-not-json.json: not a parkbench result: invalid JSON"},
		{[]string{"report", fixturePath("bad-version-99.json")}, "bad-version-99.json: result format version 99 is newer"},
		{[]string{"report", fixturePath("bad-truncated.json")}, "bad-truncated.json: truncated"},
		{[]string{"report", fixturePath("bad-wrong-types.json")}, "at /machine/logical_cpus"},
		{[]string{"report", "--format=xml", lat}, `invalid --format "xml"`},
		{[]string{"report", filepath.Join(dir, "missing.json")}, "missing.json"},
		{[]string{"compare", lat}, "BASE file and at least one NEW"},
		{[]string{"compare", lat, fixturePath("bad-not-parkbench.json")}, `bad-not-parkbench.json: not a parkbench result: no "format"`},
		{[]string{"compare", lat, herd}, "herd.json has nothing in common with " + lat},
		{[]string{"compare", "--threshold=-3", lat, lat}, "invalid --threshold"},
		{[]string{"compare", "--threshold=abc", lat, lat}, "invalid --threshold"},
		{[]string{"compare", "--alpha=1.5", lat, lat}, "invalid --alpha"},
		{[]string{"compare", "--format=csv", lat, lat}, `invalid --format "csv"`},
		{[]string{"plot", lat}, "needs --out"},
		{[]string{"plot", "--out=" + filepath.Join(dir, "x.gif"), lat}, `unknown image format ".gif"`},
		{[]string{"plot", "--out=" + filepath.Join(dir, "x.png"), suite}, "choose one with --experiment"},
		{[]string{"plot", "--out=" + filepath.Join(dir, "x.png"), "--experiment=stacks", suite}, `cannot plot experiment "stacks"`},
		{[]string{"plot", "--out=" + filepath.Join(dir, "x.png"), fixturePath("bad-empty.json")}, "empty"},
	} {
		out, errs, code := pb(t, c.args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errs, c.want)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("bad input left files behind: %v", entries)
	}
}

func TestPlotCommand(t *testing.T) {
	dir := tempDir(t)
	for _, c := range [][]string{
		{"plot", fixturePath("v1-latency.json"), "--out", filepath.Join(dir, "lat.svg")},
		{"plot", "--experiment=herd", fixturePath("v1-suite.json"), "--out", filepath.Join(dir, "herd.svg")},
		{"plot", "-q", fixturePath("v1-timeout.json"), "--out", filepath.Join(dir, "timeout.svg")},
	} {
		if _, errs, code := pb(t, c...); code != 0 {
			t.Fatalf("%v: exit %d: %s", c, code, errs)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("wrote %v", entries)
	}
}

func TestDrawBar(t *testing.T) {
	var b bytes.Buffer
	for _, c := range []struct{ done, total int }{{0, 0}, {3, 2}, {-1, 5}, {5, 5}, {2, 5}} {
		drawBar(&b, c.done, c.total, strings.Repeat("µ", 50), 0)
	}
	if !strings.Contains(b.String(), strings.Repeat("µ", 40)) || strings.Contains(b.String(), strings.Repeat("µ", 41)) || !utf8.ValidString(b.String()) {
		t.Fatalf("label not cut at 40 runes: %q", b.String())
	}
}

// TestCompareBaselineDir: compare RESULTS_DIR NEW finds NEW's baseline by
// machine class, names it first, never picks NEW's own recorded copy, and
// exits 3 when there is none.
func TestCompareBaselineDir(t *testing.T) {
	dir := tempDir(t)
	rec := filepath.Join(dir, "results")
	if err := os.Mkdir(rec, 0o755); err != nil {
		t.Fatal(err)
	}
	nw := writeResult(t, dir, "new.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 3, Samples: 200}))
	// Said once: on stdout, the output's first line (it was said on
	// stderr too).
	var outb, errb bytes.Buffer
	code := executeTo([]string{"compare", rec, nw}, &outb, &errb)
	out := outb.String()
	if code != exitNoBaseline || !strings.HasPrefix(out, "no baseline: ") || strings.Contains(out, "no baseline: no baseline") ||
		strings.Count(out+errb.String(), "no baseline") != 1 {
		t.Fatalf("empty results: exit %d\nstdout: %s\nstderr: %s", code, out, errb.String())
	}
	f, err := results.ReadFile(nw)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.Record(rec, f, ""); err != nil { // its own copy only
		t.Fatal(err)
	}
	if out, _, code := pb(t, "compare", rec, nw); code != exitNoBaseline || !strings.Contains(out, "own recorded copy") {
		t.Fatalf("own copy: exit %d\n%s", code, out)
	}
	base := resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 1, Samples: 200, Started: f.Started.Add(-time.Hour)})
	bp, err := results.Record(rec, base, "")
	if err != nil {
		t.Fatal(err)
	}
	out, _, code = pb(t, "compare", rec, nw)
	if code != 0 || !strings.HasPrefix(out, "baseline: "+bp+" (") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestCompareCannotJudge: compare BASE COPY, where the copy lost its
// configs[].rounds (and is slower), says it cannot judge and exits 0; it
// once validated and read "REGRESSION: 17 slower", exit 1.
func TestCompareCannotJudge(t *testing.T) {
	dir := tempDir(t)
	base := writeResult(t, dir, "base.json", resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 1, Samples: 200}))
	nw := resultstest.Suite(resultstest.Spec{Spread: 0.03, Seed: 2, Samples: 200, Scale: 1.5})
	for _, e := range nw.Experiments {
		for _, c := range e.Configs {
			c.Rounds = nil
		}
	}
	cp := writeResult(t, dir, "copy.json", nw)
	var out, errb bytes.Buffer
	code := executeTo([]string{"compare", base, cp}, &out, &errb)
	if code != exitOK || !strings.Contains(out.String(), "cannot judge: no rounds") || strings.Contains(out.String()+errb.String(), "REGRESSION") {
		t.Fatalf("exit %d, want 0 saying it cannot judge\nstdout: %s\nstderr: %s", code, out.String(), errb.String())
	}
}
