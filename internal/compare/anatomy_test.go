package compare

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/report/section"
	"github.com/parkbench/parkbench/internal/results"
)

// The anatomy's parts come from latency's section, as its registry entry
// registers them (internal/experiments).
func init() { section.Register("latency", anatomy.LatencySection) }

// anatomyPair reads the recorded anatomy run of the AMD EPYC f25m17 guest
// (testdata/anatomy-amd-f25m17.json, a copy of results/'s) twice, and makes
// the second an edited copy: another machine class when other is true, and
// every figure of component comp scaled by f.
func anatomyPair(t *testing.T, other bool, comp string, f float64) (*results.File, *results.File) {
	t.Helper()
	read := func() *results.File {
		rf, err := results.ReadFile("testdata/anatomy-amd-f25m17.json")
		if err != nil {
			t.Fatal(err)
		}
		return rf
	}
	base, nw := read(), read()
	if other {
		nw.Machine.CPUModel, nw.Machine.CPUVendor, nw.Machine.CPUFamily, nw.Machine.CPUModelNumber = "Intel Xeon", "GenuineIntel", 6, 167
		nw.Machine.Slug = results.Slug(nw.Machine)
	}
	for _, e := range nw.Experiments {
		for _, c := range e.Configs {
			for _, k := range []string{anatomy.MedianKey(comp), anatomy.P99Key(comp)} {
				if v, ok := c.Summary[k]; ok {
					c.Summary[k] = v * f
				}
				for _, r := range c.Rounds {
					if v, ok := r.Metrics[k]; ok {
						r.Metrics[k] = v * f
					}
				}
			}
		}
	}
	return base, nw
}

func render(t *testing.T, r *Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Render(&buf, []*Result{r}, "table"); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// Across machine classes a component has no floor: its rows are shown,
// not compared, and the component lines say the same, with both raw
// figures; the result line speaks of the machines: never REGRESSION,
// never a failure.
func TestComponentsAcrossClasses(t *testing.T) {
	base, nw := anatomyPair(t, true, anatomy.IdleExit, 0.15) // idle_exit ~20 µs -> ~3 µs
	r := run(t, base, nw)
	if !r.CrossMachine || len(r.Components) != 3 {
		t.Fatalf("cross %v, %d component diffs, want a cross-class comparison of 3 configurations", r.CrossMachine, len(r.Components))
	}
	agree(t, r)
	for _, d := range r.Components {
		for i, c := range d.Names {
			if want := c == anatomy.IdleExit; d.Moved[i] != want {
				t.Errorf("%s %s: moved %v, want %v (%v -> %v)", d.Config, c, d.Moved[i], want, d.Base[i], d.New[i])
			}
		}
	}
	if got := r.Components[1].Line(); got != "c-futex/cross-core: idle_exit 20.7 µs → 3.1 µs (-85%, not compared); call, schedule, return and residual ~" {
		t.Errorf("line %q", got)
	}
	out := render(t, r)
	if !strings.Contains(out, "result: where a wake's time differs, of 3 configurations with an anatomy: idle_exit in 3; two machine classes") {
		t.Errorf("result line does not say where the machines differ:\n%s", out)
	}
	if strings.Contains(out, "REGRESSION") || r.Failed() {
		t.Errorf("a comparison of two machine classes reads as a failure (failed %v):\n%s", r.Failed(), out)
	}
}

// The component lines are the table's rows: same figure, same verdict.
func agree(t *testing.T, r *Result) {
	t.Helper()
	for _, d := range r.Components {
		for i, c := range d.Names {
			j := slices.IndexFunc(r.Rows, func(row Row) bool { return row.Config == d.Config && row.Metric == anatomy.MedianKey(c) })
			if j < 0 {
				t.Fatalf("%s %s: no row", d.Config, c)
			}
			row := r.Rows[j]
			if d.Base[i] != row.Base.Figure() || d.New[i] != row.New.Figure() || d.Verdicts[i] != row.Verdict {
				t.Errorf("%s %s: line %v → %v %s, table %v → %v %s", d.Config, c, d.Base[i], d.New[i], d.Verdicts[i], row.Base.Figure(), row.New.Figure(), row.Verdict)
			}
		}
	}
}

// Within one class the same edit is a regression or not by the figures, as
// before, and the component lines say what the table says.
func TestComponentsOneClass(t *testing.T) {
	base, nw := anatomyPair(t, false, anatomy.Schedule, 3)
	r := run(t, base, nw)
	if r.CrossMachine {
		t.Fatal("one class read as two")
	}
	agree(t, r)
	moved := 0
	for _, d := range r.Components {
		if d.AnyMoved() {
			moved++
			if !d.Moved[2] || d.Moved[1] {
				t.Errorf("%s: moved %v, want schedule only", d.Config, d.Moved)
			}
		}
	}
	if moved != 3 {
		t.Errorf("%d configurations with a moved component, want 3", moved)
	}
	if !r.Regressed() || !r.Failed() {
		t.Errorf("schedule x3 within one class: regressed %v failed %v, want a failure", r.Regressed(), r.Failed())
	}
	if out := render(t, r); !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "schedule 8.6 µs → 25.9 µs slower") {
		t.Errorf("one class:\n%s", out)
	}
	// Unchanged: nothing moved, and the line says so.
	base, nw = anatomyPair(t, true, anatomy.Call, 1)
	r = run(t, base, nw)
	for _, d := range r.Components {
		if d.AnyMoved() || !strings.HasSuffix(d.Line(), ": every component ~ (no significant change)") {
			t.Errorf("unchanged: %s", d.Line())
		}
	}
	if out := render(t, r); !strings.Contains(out, "the wake's components agree in all 3 configurations") {
		t.Errorf("unchanged across classes:\n%s", out)
	}
}

// The two recorded anatomy runs of the AMD EPYC f25m17 guest: lot's
// idle_exit read 19.7 µs → 17.6 µs on the pooled medians (a component line
// said it moved) while the table, on the median of rounds and the rounds'
// overlap, said no change. Now the line is the table's.
func TestComponentsAgreeRecorded(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "linux-amd64-2cpu-amd-epyc-f25m17-vm")
	var fs []*results.File
	for _, n := range []string{"latency-20261203T121429Z.json", "latency-20261203T142953Z.json"} {
		f, err := results.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Skip(err)
		}
		fs = append(fs, f)
	}
	r := run(t, fs[0], fs[1])
	agree(t, r)
	for _, d := range r.Components {
		if d.Config == "lot/cross-core" && (d.Moved[1] || !strings.Contains(d.Line(), "idle_exit, schedule and residual ~")) {
			t.Errorf("lot's idle_exit moved in the line, not in the table: %s", d.Line())
		}
	}
}
