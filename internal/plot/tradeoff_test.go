package plot

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// spinFile is a spin result as the experiment writes it (its metric
// description's tradeoff figure): fixed budgets and two library rows at
// two gaps, in two placements, and the ping-pong (no gap: left out).
func spinFile(scale float64) *results.File {
	specs := []results.MetricSpec{
		{Key: results.MMedian, Header: "latency", Unit: results.UnitMicros, Better: results.Lower, Main: true,
			Plot: &results.PlotSpec{Kind: results.PlotTradeoff, X: "cpu_per_wait_ns", Param: "gap", Title: "latency against CPU", Axis: "latency (µs)"}},
		{Key: "cpu_per_wait_ns", Header: "cpu/wait", Unit: results.UnitMicros, Better: results.Lower},
	}
	e := &results.Experiment{Name: "spin", Metrics: specs}
	add := func(impl, pl, gap, budget string, lat, cpu float64) {
		c := &results.Config{Key: fmt.Sprintf("%s/%s/gap=%s/budget=%s", impl, pl, gap, budget), Impl: impl, Placement: pl,
			Params:  map[string]string{"placement": pl, "gap": gap},
			Summary: map[string]float64{results.MMedian: lat * scale, "cpu_per_wait_ns": cpu * scale}}
		if gap == "" {
			delete(c.Params, "gap")
		}
		if budget != "" {
			c.Params["budget"] = budget
		}
		e.Configs = append(e.Configs, c)
	}
	for _, pl := range []string{"cross-core", "oversubscribed"} {
		add("pingpong", pl, "", "", 9000, 3000)
		for _, g := range []string{"2µs", "64µs"} {
			add("fixed", pl, g, "0", 9000, 3000)
			add("fixed", pl, g, "4µs", 300, 2500)
			add("fixed", pl, g, "unbounded", 300, 60000)
			add("go-mutex", pl, g, "", 8000, 4000)
			add("lot-spinwait", pl, g, "", 400, 3000)
		}
	}
	f := resultstest.File(resultstest.Spec{Machine: resultstest.Machine("AMD EPYC", 2)})
	f.Experiments = []*results.Experiment{e}
	return f
}

func TestTradeoffPlot(t *testing.T) {
	dir, size := outDir(t)
	one := []results.Named{{Name: "spin.json", File: spinFile(1)}}
	two := append(one, results.Named{Name: "other/spin.json", File: spinFile(2)})
	for _, c := range []struct {
		out string
		in  []results.Named
	}{{"spin.svg", one}, {"spin.png", one}, {"two-spin.svg", two}} {
		if err := WriteFile(filepath.Join(dir, c.out), c.in, size); err != nil {
			t.Fatalf("%s: %v", c.out, err)
		}
	}
	svg, err := Render(one, "svg", size)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gap 2µs", "gap 64µs", "go-mutex", "unbounded", "cross-core", "oversubscribed"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("the plot lacks %q", want)
		}
	}
	// A tradeoff figure whose x figure is not described is bad input.
	bad := spinFile(1)
	bad.Experiments[0].Metrics[0].Plot.X = "nosuch"
	if _, err := Render([]results.Named{{Name: "bad.json", File: bad}}, "svg", size); err == nil {
		t.Errorf("an undescribed x figure was drawn")
	}
}
