package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/results"
)

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

// Across machine classes, which component moved is said first, and the
// result line speaks of the machines: never REGRESSION, never a failure.
func TestComponentsAcrossClasses(t *testing.T) {
	base, nw := anatomyPair(t, true, anatomy.IdleExit, 0.15) // idle_exit ~20 µs -> ~3 µs
	r := run(t, base, nw)
	if !r.CrossMachine || len(r.Components) != 3 {
		t.Fatalf("cross %v, %d component diffs, want a cross-class comparison of 3 configurations", r.CrossMachine, len(r.Components))
	}
	for _, d := range r.Components {
		for i, c := range d.Names {
			if want := c == anatomy.IdleExit; d.Moved[i] != want {
				t.Errorf("%s %s: moved %v, want %v (%v -> %v)", d.Config, c, d.Moved[i], want, d.Base[i], d.New[i])
			}
		}
	}
	if got := r.Components[1].Line(0.10); got != "c-futex/cross-core: idle_exit 20.5 µs → 3.1 µs; call, schedule, return and residual within 10% (or 1 µs)" {
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

// Within one class the same edit is a regression or not by the figures, as
// before, and the component lines are shown too.
func TestComponentsOneClass(t *testing.T) {
	base, nw := anatomyPair(t, false, anatomy.Schedule, 3)
	r := run(t, base, nw)
	if r.CrossMachine {
		t.Fatal("one class read as two")
	}
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
	if out := render(t, r); !strings.Contains(out, "REGRESSION") || !strings.Contains(out, "schedule 8.2 µs → 24.7 µs") {
		t.Errorf("one class:\n%s", out)
	}
	// Unchanged: nothing moved, and the line says so.
	base, nw = anatomyPair(t, true, anatomy.Call, 1)
	r = run(t, base, nw)
	for _, d := range r.Components {
		if d.AnyMoved() || !strings.HasSuffix(d.Line(0.10), ": every component within 10% (or 1 µs)") {
			t.Errorf("unchanged: %s", d.Line(0.10))
		}
	}
	if out := render(t, r); !strings.Contains(out, "the wake's components agree in all 3 configurations") {
		t.Errorf("unchanged across classes:\n%s", out)
	}
}

func TestComponentMoved(t *testing.T) {
	for _, c := range []struct {
		b, n float64
		want bool
	}{
		{20000, 3000, true},   // idle_exit: a guest's against a laptop's
		{0, 900, false},       // below 1 µs: noise of the trace itself
		{0, 5000, true},       // an idle_exit where there was none
		{20000, 21500, false}, // 7%
		{2000, 2900, false},   // 45% but 0.9 µs
	} {
		if got := ComponentMoved(c.b, c.n, 0.10); got != c.want {
			t.Errorf("ComponentMoved(%v, %v) = %v, want %v", c.b, c.n, got, c.want)
		}
	}
}
