package cli

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/parkbench/parkbench/internal/experiments/latency"
	"github.com/parkbench/parkbench/internal/experiments/stacks"
	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// checkWidth fails for every line of out wider than textfmt.Columns.
func checkWidth(t *testing.T, what, out string) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if w := textfmt.Width(l); w > textfmt.Columns {
			t.Errorf("%s: line %d is %d columns wide:\n%s", what, i+1, w, l)
		}
	}
}

// TestHelpWidth walks every command and asserts that its --help fits
// textfmt.Columns (the flag descriptions and the name lists wrapped).
func TestHelpWidth(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		args := append(strings.Fields(c.CommandPath())[1:], "--help")
		var out, errb bytes.Buffer
		if code := executeTo(args, &out, &errb); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
		}
		checkWidth(t, strings.Join(args, " "), out.String()+errb.String())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
}

// TestDefaultOutputWidth runs every command that needs no other input,
// with its default view (tiny options where it measures), and the ones
// that read result files on recorded results, and asserts that stdout and
// stderr fit textfmt.Columns.
func TestDefaultOutputWidth(t *testing.T) {
	longtest.Skip(t)
	recorded, err := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	if err != nil || len(recorded) == 0 {
		t.Fatalf("no recorded results: %v", err)
	}
	quick := filepath.Join("..", "..", "internal", "results", "testdata", "v1-run-quick.json")
	cases := [][]string{
		{"list"},
		{"version"},
		{"report", recorded[0]},
		{"report", quick},
		{"compare", recorded[0], quick},
		{"compare", quick, recorded[0]},
		{"trend", filepath.Join("..", "..", "results")},
	}
	if !testing.Short() {
		cases = append(cases,
			[]string{"latency", "--impl=futex,c-futex,spin", "--placement=cross-core", "--warmup=5", "--iterations=100", "--rounds=2", "--sched-counts=false"},
			[]string{"selfwake", "--impl=futex,lot,syscall", "--samples=20", "--rounds=2"},
			[]string{"herd", "--impl=lot,futex-broadcast", "--waiters=1,4", "--repeats=2"},
			[]string{"timeout", "--quick", "--impl=futex,nanosleep", "--deadlines=10us,100us", "--samples=5"},
			[]string{"lock", "--impl=lot,sync", "--threads=2", "--duration=20ms", "--repeats=1"},
			[]string{"lock", "--rwlock", "--impl=lot,sync", "--duration=20ms", "--repeats=1"},
			[]string{"wake", "--quick", "--impl=futex,lot", "--threads=2", "--runs=2"},
			[]string{"loaded", "--quick", "--impl=futex,lot"},
			// No --out: the last line says how to save the result.
			[]string{"run", "--quick", "--rounds=1", "--iterations=100"},
		)
		if slices.Contains(stacks.ImplNames(), "futex") && slices.Contains(latency.ImplNames(), "futex") {
			cases = append(cases, []string{"stacks", "--mech=futex,lot-mutex"})
		}
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		code := executeTo(args, &out, &errb)
		if code != exitOK && !(args[0] == "compare" && code == exitFailed) && !(args[0] == "stacks" && code == exitUsage) {
			t.Errorf("%v: exit %d: %s", args, code, errb.String())
			continue
		}
		checkWidth(t, strings.Join(args, " "), out.String()+errb.String())
	}
}
