package cli

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/loaded"
	"github.com/parkbench/parkbench/internal/experiments/selfwake"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/experiments/wake"
	"github.com/parkbench/parkbench/internal/report"
)

// complete runs cobra's completion request (what the shell scripts of
// `parkbench completion bash|zsh|fish` call) and returns the values
// offered.
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := executeTo(append([]string{"__complete"}, args...), &out, &errb); code != 0 {
		t.Fatalf("__complete %v: exit %d: %s", args, code, errb.String())
	}
	var vals []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.HasPrefix(l, ":") { // the last line is the directive
			vals = append(vals, l)
		}
	}
	return vals
}

// TestCompletion: flag values complete from the registry `parkbench list`
// shows (--impl, --mech), the placements, the formats and the experiments.
func TestCompletion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"latency", "--impl="}, append([]string{"all"}, latency.ImplNames()...)},
		{[]string{"selfwake", "--impl="}, selfwake.ImplNames()},
		{[]string{"herd", "--impl="}, herd.ImplNames()},
		{[]string{"stacks", "--mech="}, stacks.ImplNames()},
		{[]string{"latency", "--placement="}, driver.Placements},
		{[]string{"herd", "--placement="}, driver.Placements},
		{[]string{"run", "--format="}, report.Formats},
		{[]string{"report", "--format="}, report.Formats},
		{[]string{"compare", "--format="}, []string{"table", "markdown", "json"}},
		{[]string{"plot", "--experiment="}, []string{"latency", "herd", "lock", "wake", "loaded"}},
		{[]string{"wake", "--format="}, append(slices.Clone(report.Formats), "perf")},
		{[]string{"wake", "--impl="}, wake.ImplNames()},
		{[]string{"loaded", "--impl="}, loaded.ImplNames()},
	} {
		got := complete(t, c.args...)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%v: %q not offered (got %v)", c.args, w, got)
			}
		}
	}
	// A comma list completes its last item and leaves out the ones given.
	got := complete(t, "latency", "--impl=futex,c-")
	if !slices.Contains(got, "futex,c-futex") || !slices.Contains(got, "futex,c-spin") || slices.Contains(got, "futex,futex") {
		t.Errorf("--impl=futex,c- offers %v", got)
	}
	if got := complete(t, "latency", "--impl=futex,fut"); slices.Contains(got, "futex,futex") || !slices.Contains(got, "futex,futex-raw") {
		t.Errorf("--impl=futex,fut offers %v", got)
	}
	// The scripts themselves.
	for _, sh := range []string{"bash", "zsh", "fish"} {
		var out, errb bytes.Buffer
		if code := executeTo([]string{"completion", sh}, &out, &errb); code != 0 || !strings.Contains(out.String(), "__complete") {
			t.Errorf("completion %s: exit %d, %d bytes: %s", sh, code, out.Len(), errb.String())
		}
	}
}

// TestVersionAndVerbose: `parkbench version` and --version print the same
// line; -v is --verbose (the evidence of each claim), not the version.
func TestVersionAndVerbose(t *testing.T) {
	var a, b, errb bytes.Buffer
	if code := executeTo([]string{"version"}, &a, &errb); code != 0 {
		t.Fatalf("version: exit %d: %s", code, errb.String())
	}
	if code := executeTo([]string{"--version"}, &b, &errb); code != 0 {
		t.Fatalf("--version: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(a.String(), "parkbench ") || a.String() != b.String() {
		t.Errorf("version %q, --version %q", a.String(), b.String())
	}
	for _, cmd := range []string{"latency", "report", "run"} {
		var out bytes.Buffer
		executeTo([]string{cmd, "--help"}, &out, &errb)
		if !strings.Contains(out.String(), "-v, --verbose") {
			t.Errorf("%s: -v is not --verbose", cmd)
		}
	}
}

// TestQuietAndWhereTheResultWent: --quiet prints the summary alone and on
// stderr one line, where the result went (it once printed nothing there,
// and a quiet run left no trace of its result); otherwise too the last
// line on stderr says where the result went, or that it was not saved and
// how to save it.
func TestQuietAndWhereTheResultWent(t *testing.T) {
	if testing.Short() {
		t.Skip("measures")
	}
	args := []string{"selfwake", "--impl=" + sleeper(t), "--samples=10", "--rounds=1"}
	var out, errb bytes.Buffer
	if code := executeTo(append(args, "-q"), &out, &errb); code != 0 {
		t.Fatalf("-q: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(out.String(), "summary\n  selfwake: ") || strings.Contains(out.String(), "│") ||
		strings.Count(errb.String(), "\n") != 1 || !strings.HasPrefix(errb.String(), "result not saved: --out FILE writes it") {
		t.Errorf("-q printed more than the summary and where the result went:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	out.Reset()
	errb.Reset()
	if code := executeTo(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "│") || !strings.HasPrefix(lastLine(errb.String()), "result not saved: --out FILE writes it") {
		t.Errorf("no table, or the end does not say the result was not saved:\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
	}
	file := tempDir(t) + "/selfwake.json"
	errb.Reset()
	if code := executeTo(append(args, "--out", file), &out, &errb); code != 0 {
		t.Fatalf("--out: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(lastLine(errb.String()), "wrote "+file) {
		t.Errorf("the end does not say where the result went:\n%s", errb.String())
	}
	errb.Reset()
	if code := executeTo(append(args, "-q", "--out", file), &out, &errb); code != 0 {
		t.Fatalf("-q --out: exit %d: %s", code, errb.String())
	}
	if !strings.HasPrefix(errb.String(), "wrote "+file+" ") || strings.Count(errb.String(), "\n") != 1 {
		t.Errorf("-q --out: stderr %q, want the one line saying where the result went", errb.String())
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}
