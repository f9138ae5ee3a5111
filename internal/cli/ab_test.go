package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// fakeBin writes an executable shell script standing in for a parkbench
// binary: --version prints version (nothing when empty); any other command
// prints the file result (a canned trial) or, when result is "", fails as
// an old parkbench without the command would.
func fakeBin(t *testing.T, dir, name, version, result string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString("if [ \"$1\" = --version ]; then\n")
	if version != "" {
		b.WriteString("  echo '" + version + "'\n")
	}
	b.WriteString("  exit 0\nfi\n")
	if result == "" {
		b.WriteString("echo \"Error: unknown command \\\"$1\\\" for \\\"parkbench\\\"\" >&2\nexit 2\n")
	} else {
		b.WriteString("cat '" + result + "'\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// abFixture is the fake-binary tests' setup: a directory and a canned
// latency trial (the spec and the file), skipped on Windows.
func abFixture(t *testing.T) (dir string, s resultstest.Spec, trial string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake binaries are shell scripts")
	}
	dir = tempDir(t)
	s = resultstest.Spec{Samples: 50, Rounds: 5, Floors: true}
	return dir, s, writeResult(t, dir, "trial.json", resultstest.File(s, resultstest.Latency(s)))
}

// TestABBadInput: a side that is not parkbench, cannot run the trial, or
// writes a result this build cannot read makes ab exit 2 naming it; two
// well-formed binaries run the gate (canned, identical trials: no
// regression, the verdict on the first line).
func TestABBadInput(t *testing.T) {
	longtest.Skip(t)
	dir, _, good := abFixture(t)
	ok := fakeBin(t, dir, "ok", "parkbench devel (fake) go1.26.8", good)
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	doc["version"] = 99
	v99, _ := json.Marshal(doc)
	doc["version"], doc["format"] = 1, "other-result"
	other, _ := json.Marshal(doc)
	for name, data := range map[string][]byte{"v99.json": v99, "other.json": other} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A base that does not measure std (a row new in this change).
	f, err := results.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	e := f.Experiments[0]
	e.Configs = slices.DeleteFunc(e.Configs, func(c *results.Config) bool { return c.Impl == "std" })
	partial := fakeBin(t, dir, "partial", "parkbench devel (p) go1.26.8", writeResult(t, dir, "partial.json", f))
	notPB := fakeBin(t, dir, "true", "", good)
	old := fakeBin(t, dir, "old", "parkbench devel (old) go1.26.8", "")
	future := fakeBin(t, dir, "future", "parkbench v9 go1.30", filepath.Join(dir, "v99.json"))
	foreign := fakeBin(t, dir, "foreign", "parkbench devel (x) go1.26.8", filepath.Join(dir, "other.json"))
	missing := filepath.Join(dir, "nosuch")
	for _, c := range []struct {
		base, new, want string
	}{
		{missing, ok, "the base binary " + missing},
		{ok, notPB, "the new binary " + notPB + ": is not parkbench"},
		{old, ok, "the base binary " + old + ": cannot run the gate's trial"},
		{ok, future, "the new binary " + future + ": cannot run the gate's trial: its output is not a result this build reads"},
		{foreign, ok, "the base binary " + foreign + ": cannot run the gate's trial: its output is not a result this build reads"},
	} {
		out, errs, code := pb(t, "ab", "--quiet", "--profile=latency", "--trials=4", "--max-trials=4", c.base, c.new)
		if code != exitUsage || !strings.Contains(errs, c.want) || out != "" {
			t.Errorf("ab %s %s: exit %d, stderr %q, stdout %q; want exit 2 and %q", filepath.Base(c.base), filepath.Base(c.new), code, errs, out, c.want)
		}
	}
	if out, errs, code := pb(t, "ab", "--profile=herd", ok, ok); code != exitUsage || !strings.Contains(errs, `invalid --profile "herd": valid profiles are latency, wake, all`) || out != "" {
		t.Errorf("ab --profile=herd: exit %d, stderr %q, stdout %q", code, errs, out)
	}
	out, errs, code := pb(t, "ab", "--quiet", "--profile=latency", "--trials=4", "--max-trials=4", partial, ok)
	if code != 0 || !strings.Contains(out, "2 headline rows") || !strings.Contains(out, "not judged: latency std/cross-core median/c-futex: the base does not measure it") {
		t.Fatalf("ab partial ok: exit %d, stderr %q\n%s", code, errs, out)
	}
	res := filepath.Join(dir, "ab.json")
	out, errs, code = pb(t, "ab", "--quiet", "--profile=latency", "--trials=4", "--max-trials=4", "--seed=7", "--out", res, ok, ok)
	if code != 0 || !strings.HasPrefix(out, "parkbench ab: no regression: 4 headline rows (4 same), geomean same; 8 trials") {
		t.Fatalf("ab ok ok: exit %d, stderr %q\n%s", code, errs, out)
	}
	var back struct {
		Options struct{ Seed uint64 }
		Trials  []json.RawMessage
		Order   []string
	}
	data, err := os.ReadFile(res)
	if err != nil || json.Unmarshal(data, &back) != nil || back.Options.Seed != 7 || len(back.Trials) != 8 || len(back.Order) != 2 {
		t.Fatalf("--out: %v %+v", err, back)
	}
}

// TestABBaseWithoutWakePart: a base binary older than the wake experiment
// runs the latency part only; the wake part's rows are listed as not
// judged and the gate goes on (the default profile, both parts).
func TestABBaseWithoutWakePart(t *testing.T) {
	longtest.Skip(t)
	dir, s, lat := abFixture(t)
	w := &results.Experiment{Name: "wake", Metrics: wake.Metrics}
	for i, im := range []string{"futex", "lot", "std"} {
		w.Configs = append(w.Configs, &results.Config{Key: im + "/wake/n=16/w=all", Impl: im,
			Params:  map[string]string{"bench": "wake", "n": "16", "w": "all"},
			Summary: map[string]float64{wake.MWakerMedian: 40e3 + 5e3*float64(i), wake.MWakerMean: 45e3}})
	}
	// One file with both experiments: a part finds its own by name.
	both := writeResult(t, dir, "both.json", resultstest.File(s, resultstest.Latency(s), w))
	old := fakeBin(t, dir, "old", "parkbench devel (old) go1.26.8", lat)
	cur := fakeBin(t, dir, "new", "parkbench devel (new) go1.26.8", both)
	out, errs, code := pb(t, "ab", "--quiet", "--trials=4", "--max-trials=4", old, cur)
	if code != 0 || !strings.Contains(out, "4 headline rows") ||
		!strings.Contains(out, "not judged: wake lot/wake/n=16/w=all waker median: the base cannot run the wake part") {
		t.Fatalf("ab old new: exit %d, stderr %q\n%s", code, errs, out)
	}
	out, errs, code = pb(t, "ab", "--quiet", "--trials=4", "--max-trials=4", cur, cur)
	if code != 0 || !strings.Contains(out, "7 headline rows (7 same)") || !strings.Contains(out, "lot/wake/n=16/w=all waker median    45.00 µs") {
		t.Fatalf("ab new new: exit %d, stderr %q\n%s", code, errs, out)
	}
}
