package cli

import (
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

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
	tbl := tagged[latency.LatencyOptions](latency.ImplNames())
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

// TestFieldsFromTags: every option error an experiment can return for a
// field a flag sets names that flag, per command, from the tags of its
// Options: the field's own flag, and the one that sets a second field too
// (latency's --warmup: GapWarmup); run's from the fields its setters set.
func TestFieldsFromTags(t *testing.T) {
	f := tagged[herd.Options](herd.ImplNames()).fields()
	if f["Waiters"] != "waiters" || f["Repeats"] != "repeats" || f["Impls"] != "impl" {
		t.Errorf("herd: fields %v", f)
	}
	f = tagged[latency.LatencyOptions](latency.ImplNames()).fields()
	if f["Warmup"] != "warmup" || f["GapWarmup"] != "warmup" || f["GapIterations"] != "iterations" || f["Gaps"] != "gap" {
		t.Errorf("latency: fields %v", f)
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

// tagTest exercises every part of a flag tag (flags.go).
type tagTest struct {
	Names  []string      `flag:"name" placeholder:"NAME" help:"names: NAME, or all ({Names})"`
	Count  int           `flag:"count" help:"a count, 1..{Max}"`
	Copy   int           `flag:"count"`
	None   []string      `flag:"none,empty-ok" help:"may be empty"`
	Items  tagItems      `flag:"items" help:"items"`
	Wait   time.Duration `flag:"wait" help:"a wait"`
	Hidden int
}

func (tagTest) FlagVars() map[string]any {
	return map[string]any{"Names": []string{"a", "b"}, "Max": 9}
}

// tagItems reads "big" as 1000.
type tagItems []int

func (tagItems) ParseItem(s string) (int, error) {
	if s == "big" {
		return 1000, nil
	}
	return parseInt(s)
}
func (tagItems) FormatItem(n int) string {
	if n == 1000 {
		return "big"
	}
	return strconv.Itoa(n)
}

// TestTagged: a table from tags has a flag per tagged field with its
// usage built (placeholder back-quoted, {Name} replaced), a second field
// of a flag set with the first, an empty-ok list that takes "", a list
// read by its type's own methods; an unreadable tag panics.
func TestTagged(t *testing.T) {
	tbl := tagged[tagTest](nil)
	var names []string
	for _, f := range tbl {
		names = append(names, f.name)
	}
	if got := strings.Join(names, " "); got != "name count none items wait" {
		t.Fatalf("flags %q", got)
	}
	if tbl[0].usage != "names: `NAME`, or all (a, b)" || tbl[1].usage != "a count, 1..9" {
		t.Errorf("usages %q, %q", tbl[0].usage, tbl[1].usage)
	}
	o := tagTest{Items: tagItems{1000}}
	if got := tbl[3].get(reflect.ValueOf(&o).Elem()); got != "big" {
		t.Errorf("items shown as %q", got)
	}
	for i, s := range []string{"x,y", "3", "", "2,big", "1ms"} {
		if err := tbl[i].set(reflect.ValueOf(&o).Elem(), s); err != nil {
			t.Errorf("--%s=%s: %v", tbl[i].name, s, err)
		}
	}
	if o.Count != 3 || o.Copy != 3 || len(o.None) != 0 || len(o.Items) != 2 || o.Items[1] != 1000 || o.Wait != time.Millisecond {
		t.Errorf("options %+v", o)
	}
	if f := tbl.fields(); f["Copy"] != "count" || len(f) != 6 {
		t.Errorf("fields %v", f)
	}
	for _, bad := range []func(){
		func() {
			tagged[struct {
				X int `flag:"x"`
			}](nil)
		}, // no help
		func() {
			tagged[struct {
				X int `flag:"x" help:"{Nope}"`
			}](nil)
		}, // no FlagVars
		func() {
			tagged[struct {
				X int `flag:"x" placeholder:"N" help:"none"`
			}](nil)
		}, // placeholder not in help
		func() {
			tagged[struct {
				X int `flag:"x,empty-ok" help:"an int"`
			}](nil)
		}, // empty-ok on an int
		func() {
			tagged[struct {
				X float64 `flag:"x" help:"a float"`
			}](nil)
		}, // no such flag type
		func() {
			tagged[struct {
				X, Y int `flag:"x" help:"twice"`
			}](nil)
		}, // a second help
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a bad tag did not panic")
				}
			}()
			bad()
		}()
	}
}
