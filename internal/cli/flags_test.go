package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/experiments"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/latency"
)

// TestExplicitFlagBeatsQuick: --quick starts from QuickOptions, every
// flag the user gave is applied on top, whatever its order, and a flag not
// given keeps the --quick value.
func TestExplicitFlagBeatsQuick(t *testing.T) {
	cmd := newLatencyCmd()
	if err := cmd.ParseFlags([]string{"--warmup=7", "--quick", "--placement=unpinned"}); err != nil {
		t.Fatal(err)
	}
	tbl := latencyTableForTest()
	def, q := latency.DefaultLatencyOptions(), latency.QuickLatencyOptions()
	o, err := tbl.options(cmd.Flags(), def, &q, true)
	if err != nil {
		t.Fatal(err)
	}
	if o.Warmup != 7 || o.GapWarmup != 7 {
		t.Errorf("--warmup=7 --quick: warmup %d, gap warmup %d; want 7 (explicit beats --quick)", o.Warmup, o.GapWarmup)
	}
	if o.Iterations != q.Iterations || o.SchedCounts != q.SchedCounts {
		t.Errorf("--quick: iterations %d sched-counts %v; want the quick %d %v", o.Iterations, o.SchedCounts, q.Iterations, q.SchedCounts)
	}
	if len(o.Placements) != 1 || o.Placements[0] != "unpinned" {
		t.Errorf("placements %v", o.Placements)
	}
	o, err = tbl.options(cmd.Flags(), def, &q, false)
	if err != nil || o.Iterations != def.Iterations {
		t.Errorf("without --quick: iterations %d, want the default %d (%v)", o.Iterations, def.Iterations, err)
	}
}

// latencyTableForTest is latency's table, as its command registers it.
func latencyTableForTest() flagTable[latency.LatencyOptions] {
	type O = latency.LatencyOptions
	return flagTable[O]{
		intFlag("warmup", "Warmup", "", func(o *O) *int { return &o.Warmup }).also("GapWarmup", func(o *O) { o.GapWarmup = o.Warmup }),
		intFlag("iterations", "Iterations", "", func(o *O) *int { return &o.Iterations }),
		namesFlag("placement", "Placements", "", func(o *O) *[]string { return &o.Placements }),
	}
}

// TestHelpDefaultsFromOptions: a flag's default in help is the
// experiment's DefaultOptions, its --quick value QuickOptions', with
// nothing restated in the command.
func TestHelpDefaultsFromOptions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		// The quick placement is cross-core where threads can be pinned,
		// unpinned elsewhere: read it from the options, as help does.
		{[]string{"latency", "--help"}, []string{"(--quick: 2000) (default 10000)",
			"(--quick: " + strings.Join(latency.QuickLatencyOptions().Placements, ",") + `) (default "all")`}},
		{[]string{"herd", "--help"}, []string{`(--quick: 1,16,64) (default "1,4,16,64")`, "(default 20µs)"}},
		{[]string{"timeout", "--help"}, []string{`(default "10µs,100µs,1ms,10ms")`}},
		{[]string{"lock", "--help"}, []string{`(--quick: 0) (default "0,200ns")`, "--rwlock"}},
		{[]string{"rwlock", "--help"}, []string{"--readers", "--writers"}},
		{[]string{"run", "--help"}, []string{"--rounds int", "(default 3)", "--iterations int", "(--quick: 2000) (default 10000)"}},
	} {
		var out, errb bytes.Buffer
		if code := executeTo(c.args, &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errb.String())
		}
		// Help wraps its lines: compare the words.
		words := strings.Join(strings.Fields(out.String()), " ")
		for _, w := range c.want {
			if !strings.Contains(words, strings.Join(strings.Fields(w), " ")) {
				t.Errorf("%v: help lacks %q:\n%s", c.args, w, out.String())
			}
		}
	}
}

// TestFieldsFromTables: every option error an experiment can return for a
// field a flag sets names that flag, per command, from its table.
func TestFieldsFromTables(t *testing.T) {
	type O = herd.Options
	tbl := flagTable[O]{
		intsFlag("waiters", "Waiters", "", func(o *O) *[]int { return &o.Waiters }),
		intFlag("repeats", "Repeats", "", func(o *O) *int { return &o.Repeats }),
	}
	f := tbl.fields()
	if f["Waiters"] != "waiters" || f["Repeats"] != "repeats" || len(f) != 2 {
		t.Errorf("fields %v", f)
	}
	rf := runFlags().fields()
	for field, flag := range map[string]string{"Rounds": "rounds", "Repeats": "rounds", "Iterations": "iterations", "GapIterations": "iterations", "Samples": "iterations"} {
		if rf[field] != flag {
			t.Errorf("run: field %s -> --%s, want --%s", field, rf[field], flag)
		}
	}
}

// TestRunRoundsIterations: run --rounds and --iterations reach every
// experiment where they mean something, and bad values exit 2 naming them.
func TestRunRoundsIterations(t *testing.T) {
	o := experiments.QuickSuite()
	o.SetRounds(7)
	o.SetIterations(500)
	if o.Latency.Rounds != 7 || o.Selfwake.Rounds != 7 || o.Herd.Repeats != 7 || o.Lock.Repeats != 7 || o.RwLock.Repeats != 7 {
		t.Errorf("SetRounds(7): %+v", o)
	}
	if o.Latency.Iterations != 500 || o.Latency.GapIterations != 500 || o.Selfwake.Samples != 500 {
		t.Errorf("SetIterations(500): %+v %+v", o.Latency, o.Selfwake)
	}
	if err := o.Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []struct{ arg, want string }{{"--rounds=0", "--rounds: invalid rounds 0"}, {"--iterations=0", "--iterations: invalid iterations 0"}, {"--rounds=x", `"--rounds"`}} {
		var out, errb bytes.Buffer
		if code := executeTo([]string{"run", "--quick", c.arg}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Errorf("run --quick %s: exit %d, stderr %q; want 2 naming %s", c.arg, code, errb.String(), c.want)
		}
	}
}
