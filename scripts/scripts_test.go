// Package scripts holds the CI helper scripts; its tests run them against
// fixture result files (no measuring: the tests must be fast and must not
// depend on the machine's load).
package scripts

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
	"gopkg.in/yaml.v3"
)

var parkbenchBin string

// TestMain builds parkbench for TestCIBench; under -short, which skips it,
// nothing is built (a build without -race from a cold cache compiles the
// whole module again).
func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		os.Exit(m.Run())
	}
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
	if testing.Short() {
		t.Skip("builds parkbench and runs ci-bench.sh 15 times: .ci/run's long tests run it")
	}
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

// ciRunCommands are the parkbench commands .ci/run exercises on Linux, and
// what in .ci/run exercises each: scripts/ci-bench.sh runs `run --quick`,
// `report` and `compare` for real, and with --base the gate, `ab`; `go test ./...` runs them on fixtures
// (scripts/cibench_test.go drives ci-bench.sh, internal/cli's tests call
// report, compare and plot). The workflow may call only these, so that what
// runs on hosted runners has run here first.
var ciRunCommands = map[string][]string{
	"run":     {"ci-bench.sh"},
	"report":  {"ci-bench.sh", "go test"},
	"compare": {"ci-bench.sh", "go test"},
	"plot":    {"go test"},
	"ab":      {"ci-bench.sh --base"},
}

// runners are the hosted runner classes the workflow must cover.
var runners = []string{"ubuntu-latest", "ubuntu-24.04-arm", "windows-latest", "macos-latest"}

// workflow is the part of GitHub's workflow syntax parkbench.yml uses;
// decoding with KnownFields rejects a misspelt key.
type workflow struct {
	Name        string            `yaml:"name"`
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]struct {
		Name           string `yaml:"name"`
		RunsOn         string `yaml:"runs-on"`
		Needs          any    `yaml:"needs"`
		If             string `yaml:"if"`
		TimeoutMinutes int    `yaml:"timeout-minutes"`
		Strategy       struct {
			FailFast bool           `yaml:"fail-fast"`
			Matrix   map[string]any `yaml:"matrix"`
		} `yaml:"strategy"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Uses  string            `yaml:"uses"`
			Run   string            `yaml:"run"`
			Shell string            `yaml:"shell"`
			With  map[string]string `yaml:"with"`
			If    string            `yaml:"if"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func readWorkflow(t *testing.T) (*workflow, string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", ".github", "workflows", "parkbench.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&w); err != nil {
		t.Fatalf("parkbench.yml: %v", err)
	}
	return &w, string(data)
}

// pbCall finds parkbench invocations: ./parkbench in the workflow, "$bin"
// in ci-bench.sh (not the word in comments or echoed text).
var pbCall = regexp.MustCompile(`(?m)(?:\./parkbench(?:\.exe)?|"\$bin")\s+(?:--?\S+\s+)*([a-z]+)\b`)

func TestWorkflow(t *testing.T) {
	w, _ := readWorkflow(t)
	if w.Name == "" || w.On == nil || len(w.Jobs) == 0 {
		t.Fatal("workflow without name, triggers or jobs")
	}
	bench, ok := w.Jobs["bench"]
	if !ok {
		t.Fatal("no bench job")
	}
	var oses []string
	for _, o := range bench.Strategy.Matrix["os"].([]any) {
		oses = append(oses, o.(string))
	}
	for _, r := range runners {
		if !slices.Contains(oses, r) {
			t.Errorf("the bench matrix lacks %s", r)
		}
	}
	if bench.RunsOn != "${{ matrix.os }}" {
		t.Errorf("bench runs on %q", bench.RunsOn)
	}
	var uploads, ciBench, tests bool
	for _, s := range bench.Steps {
		if strings.HasPrefix(s.Uses, "actions/upload-artifact@") {
			uploads = s.If == "always()" && strings.Contains(s.With["path"], "out/suite.json") && strings.Contains(s.With["name"], "${{ matrix.os }}")
		}
		if strings.Contains(s.Run, "scripts/ci-bench.sh") {
			ciBench = s.Shell == "bash" && strings.Contains(s.Run, "--out out")
		}
		if strings.Contains(s.Run, "go test") {
			tests = true
		}
		if s.Run != "" && s.Shell != "bash" {
			t.Errorf("bench step %q does not use bash (Windows would run it in PowerShell)", s.Name)
		}
	}
	if !uploads || !ciBench || !tests {
		t.Errorf("bench job: tests %v, ci-bench.sh with bash into out/ %v, result uploaded always %v", tests, ciBench, uploads)
	}
	cmp, ok := w.Jobs["compare"]
	if !ok {
		t.Fatal("no compare job")
	}
	if cmp.Needs != "bench" || cmp.If != "always()" {
		t.Errorf("compare job: needs %v, if %q", cmp.Needs, cmp.If)
	}
	var downloads, summary bool
	for _, s := range cmp.Steps {
		downloads = downloads || strings.HasPrefix(s.Uses, "actions/download-artifact@") && s.With["pattern"] == "parkbench-*"
		summary = summary || strings.Contains(s.Run, "compare --format=markdown") && strings.Contains(s.Run, "$GITHUB_STEP_SUMMARY")
	}
	if !downloads || !summary {
		t.Errorf("compare job: downloads all artifacts %v, writes the compare markdown to the summary %v", downloads, summary)
	}
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if s.Uses != "" && !regexp.MustCompile(`^[\w.-]+/[\w.-]+@v\d+$`).MatchString(s.Uses) {
				t.Errorf("job %s: action %q is not pinned to a major version", name, s.Uses)
			}
		}
	}
}

// Every parkbench command the workflow calls, itself or through
// ci-bench.sh, is one .ci/run exercises on Linux.
func TestWorkflowCommandsRunHere(t *testing.T) {
	_, text := readWorkflow(t)
	script, err := os.ReadFile("ci-bench.sh")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, src := range []string{text, string(script)} {
		for _, m := range pbCall.FindAllStringSubmatch(src, -1) {
			seen[m[1]] = true
		}
	}
	var cmds []string
	for c := range seen {
		cmds = append(cmds, c)
	}
	sort.Strings(cmds)
	if len(cmds) == 0 {
		t.Fatal("found no parkbench calls: the pattern is broken")
	}
	for _, c := range cmds {
		if _, ok := ciRunCommands[c]; !ok {
			t.Errorf("the workflow calls 'parkbench %s', which .ci/run does not exercise on Linux", c)
		}
	}
	t.Logf("workflow and ci-bench.sh call parkbench %v", cmds)
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatalf(".ci/run: %v", err)
	}
	for _, c := range cmds {
		ok := regexp.MustCompile(`parkbench"?\s+` + c + `\b`).Match(ci)
		for _, via := range ciRunCommands[c] {
			ok = ok || strings.Contains(string(ci), via)
		}
		if !ok {
			t.Errorf(".ci/run does not exercise 'parkbench %s', which the workflow runs: add `bash scripts/ci-bench.sh --gate=noise-tolerant` to .ci/run (or call it there)", c)
		}
	}
}

// maxEntries is the most entries scripts/ may hold: fold an investigation
// into a script with subcommands, or delete it, before adding another.
const maxEntries = 20

// TestScriptsIndexed keeps scripts/README.md: every entry of this directory
// has its row there and every row its entry; every script is run by
// .ci/run, or sourced by one that is, and a script .ci/run runs for its
// --smoke has one; every helper program under cmd/ is called from .ci/run
// or a script.
func TestScriptsIndexed(t *testing.T) {
	index, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > maxEntries {
		t.Errorf("scripts/ holds %d entries, more than %d: fold one into a script with subcommands, or delete one", len(entries), maxEntries)
	}
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|[^|]+\\|[^|]*\\S[^|]*\\|$")
	rows := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(string(index), -1) {
		rows[strings.TrimSuffix(m[1], "/")] = true
	}
	scripts := map[string]string{}
	for _, e := range entries {
		if !rows[e.Name()] {
			t.Errorf("scripts/%s has no row in scripts/README.md (| `%s` | what it is for | who runs it |)", e.Name(), e.Name())
		}
		delete(rows, e.Name())
		if strings.HasSuffix(e.Name(), ".sh") {
			b, err := os.ReadFile(e.Name())
			if err != nil {
				t.Fatal(err)
			}
			scripts[e.Name()] = string(b)
		}
	}
	for r := range rows {
		t.Errorf("scripts/README.md has a row for %s, which is not in scripts/", r)
	}
	runs := func(text, name string) bool { return strings.Contains(text, "scripts/"+name) }
	smoke := regexp.MustCompile(`(?m)^\s*for s in ([^;]+);`)
	var smoked []string
	for _, m := range smoke.FindAllStringSubmatch(strings.ReplaceAll(string(ci), "\\\n", " "), -1) {
		smoked = append(smoked, strings.Fields(m[1])...)
	}
	for name, text := range scripts {
		switch {
		case runs(string(ci), name):
		case !strings.HasPrefix(text, "#!"):
			// A file to source: one that .ci/run runs must source it.
			sourced := false
			for other, o := range scripts {
				sourced = sourced || runs(string(ci), other) && strings.Contains(o, ". scripts/"+name)
			}
			if !sourced {
				t.Errorf("scripts/%s is sourced by no script .ci/run runs", name)
			}
		default:
			t.Errorf("scripts/%s is not run by .ci/run: give it a --smoke and add it to the scripts step", name)
		}
	}
	for _, s := range smoked {
		name := strings.TrimPrefix(s, "scripts/")
		if text, ok := scripts[name]; !ok {
			t.Errorf(".ci/run's scripts step runs %s, which is not a script here", s)
		} else if !strings.Contains(text, "--smoke") {
			t.Errorf(".ci/run runs %s --smoke, which it does not have", s)
		}
	}
	cmds, err := os.ReadDir("cmd")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		used := runs(string(ci), "cmd/"+c.Name())
		for _, text := range scripts {
			used = used || runs(text, "cmd/"+c.Name())
		}
		if !used {
			t.Errorf("scripts/cmd/%s is called neither from .ci/run nor from a script", c.Name())
		}
	}
}

// TestLongTestsRunInCI: every package with a test that -short skips or
// shrinks (testing.Short, longtest.Skip, longtest.Short) is in .ci/run's
// long tests step, which runs it without -short, so that CI checks what
// the README's `go test -short ...` leaves out; and the README's
// test command is the one .ci/run runs.
func TestLongTestsRunInCI(t *testing.T) {
	ci, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(ci)
	i := strings.Index(text, `step "long tests`)
	if i < 0 {
		t.Fatal(`.ci/run has no step "long tests"`)
	}
	step := text[i+1:]
	if j := strings.Index(step, "\nstep "); j >= 0 {
		step = step[:j]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`\./([\w./-]+)/`).FindAllStringSubmatch(step, -1) {
		listed[m[1]] = true
	}
	short := regexp.MustCompile(`testing\.Short\(\)|longtest\.(Skip|Short)\(`)
	err = filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "target") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		pkg := strings.TrimPrefix(dir, "../")
		if dir == ".." {
			pkg = "."
		}
		if short.Match(b) && !listed[pkg] {
			t.Errorf("%s: a test skips or shrinks under -short, but .ci/run's long tests step does not run ./%s/ without it", path, pkg)
			listed[pkg] = true // once per package
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cmd = "go test -p 4 -short -race -vet=off -ldflags=-w ./..."
	if !strings.Contains(string(readme), "\n"+cmd+"\n") || !strings.Contains(text, "\n"+cmd+"\n") {
		t.Errorf("the README's test command, %q, is not on a line of its own in both README.md and .ci/run", cmd)
	}
}
