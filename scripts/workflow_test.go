package scripts

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

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
