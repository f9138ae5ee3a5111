// Package scripts holds the CI helper scripts; its tests run them against
// fixture result files (no measuring: the tests must be fast and must not
// depend on the machine's load).
package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

var parkbenchBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cibench")
	if err != nil {
		panic(err)
	}
	parkbenchBin = filepath.Join(dir, "parkbench")
	if runtime.GOOS == "windows" {
		parkbenchBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", parkbenchBin, "../cmd/parkbench")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building parkbench: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type ciRun struct {
	stdout, stderr, summary string
	code                    int
}

func ciBench(t *testing.T, args ...string) ciRun {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	summary := filepath.Join(t.TempDir(), "summary.md")
	// Forward slashes: Git Bash on Windows takes C:/x/y, not always C:\x\y.
	full := []string{"ci-bench.sh", "--parkbench", filepath.ToSlash(parkbenchBin)}
	for _, a := range args {
		full = append(full, filepath.ToSlash(a))
	}
	cmd := exec.Command(bash, full...)
	cmd.Env = append(os.Environ(), "GITHUB_STEP_SUMMARY="+filepath.ToSlash(summary))
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	s, _ := os.ReadFile(summary)
	return ciRun{out.String(), errb.String(), string(s), code}
}

func write(t *testing.T, path string, f *results.File) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := results.WriteFile(path, f); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCIBench(t *testing.T) {
	dir := t.TempDir()
	spec := func(seed uint64, scale float64) resultstest.Spec {
		return resultstest.Spec{Spread: 0.03, Seed: seed, Scale: scale, Samples: 300}
	}
	base := resultstest.Suite(spec(1, 1))
	recorded := filepath.Join(dir, "results")
	// Two recordings: the newest suite is the baseline.
	old := resultstest.Suite(spec(7, 3))
	write(t, filepath.Join(recorded, base.Machine.Slug, "suite-20260101T000000Z.json"), old)
	write(t, filepath.Join(recorded, base.Machine.Slug, "suite-20261130T120000Z.json"), base)
	same := write(t, filepath.Join(dir, "same.json"), resultstest.Suite(spec(3, 1.03)))
	slow := write(t, filepath.Join(dir, "slow.json"), resultstest.Suite(spec(2, 1.5)))
	other := resultstest.Suite(resultstest.Spec{Machine: resultstest.Machine("Apple M1", 3), Samples: 300})
	other.Machine.OS = "darwin"
	other.Machine.Slug = "darwin-arm64-3cpu-apple-m1"
	noBase := write(t, filepath.Join(dir, "other.json"), other)
	broken := filepath.Join(dir, "broken.json")
	data, _ := os.ReadFile(same)
	os.WriteFile(broken, data[:len(data)/2], 0o644)
	foreign := filepath.Join(dir, "foreign.json")
	os.WriteFile(foreign, []byte(`{"results": []}`), 0o644)

	for _, c := range []struct {
		name string
		args []string
		code int
		want []string
	}{
		{"noise only", []string{"--result", same}, 0, []string{"Baseline: " + filepath.ToSlash(filepath.Join(recorded, base.Machine.Slug, "suite-20261130T120000Z.json")) + " (the newest result", "## parkbench quick suite", "0 slower"}},
		{"regression tolerated", []string{"--result", slow}, 0, []string{"REGRESSION"}},
		// The recorded-baseline view never fails the build on verdicts
		// (3 of 3 A/A runs read REGRESSION there); strict is the A/B gate.
		{"strict needs --base", []string{"--gate=strict", "--result", slow}, 2, []string{"--gate=strict is the regression gate", "give --base REV"}},
		{"strict needs --base (spaced)", []string{"--gate", "strict", "--result", same}, 2, []string{"give --base REV"}},
		{"threshold", []string{"--threshold=90%", "--result", slow}, 0, []string{"±90%"}},
		{"explicit baseline", []string{"--result", same, "--baseline", slow}, 0, []string{"faster"}},
		{"no baseline", []string{"--result", noBase}, 0, []string{"**No baseline**: no result of machine class darwin-amd64-3cpu-apple-m1-kvm under"}},
		{"gate: unknown revision", []string{"--base=no-such-revision-xyz"}, 2, []string{"not a revision"}},
		{"gate: with --result", []string{"--base=HEAD", "--result", same}, 2, []string{"--base runs the A/B gate"}},
		{"truncated result", []string{"--result", broken}, 2, []string{"unreadable", "truncated"}},
		{"foreign result", []string{"--result", foreign}, 2, []string{"not a parkbench result"}},
		{"missing result", []string{"--result", filepath.Join(dir, "nope.json")}, 2, []string{"no result file"}},
		{"broken baseline", []string{"--result", same, "--baseline", foreign}, 2, []string{"compare failed (exit 2)"}},
		{"bad gate", []string{"--gate=lenient", "--result", same}, 2, nil},
		{"record with result", []string{"--record", "--result", same}, 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--results", recorded, "--out", t.TempDir()}, c.args...)
			r := ciBench(t, args...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s\nstdout: %s", r.code, c.code, r.stderr, r.stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(r.stdout+r.stderr, w) {
					t.Errorf("no %q in output:\n%s\n%s", w, r.stdout, r.stderr)
				}
			}
			if r.stdout != "" && r.summary != r.stdout {
				t.Errorf("the job summary is not what was printed")
			}
			if c.code != 2 && !strings.HasPrefix(r.stdout, "Baseline: ") && !strings.HasPrefix(r.stdout, "**No baseline**") {
				t.Errorf("the first line is not the baseline:\n%s", r.stdout)
			}
		})
	}
}
