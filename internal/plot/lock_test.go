package plot

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/parkbench/parkbench/internal/results"
)

func lockInput(name string, scale float64) results.Named { return lockInputImpls(name, scale, 3) }

// lockImpls are the implementations of a default lock run, in its order.
var lockImpls = []string{"lot", "sync", "c-pthread", "std-futex", "spin", "pi-futex", "pthread-pi", "rust-parking_lot"}

// lockInputImpls is a lock result of the first n of lockImpls at 1, 2 and 4
// threads, two repeats each.
func lockInputImpls(name string, scale float64, n int) results.Named {
	e := &results.Experiment{Name: "lock"}
	for i, impl := range lockImpls[:n] {
		for _, t := range []int{1, 2, 4} {
			c := &results.Config{Key: fmt.Sprintf("%s/in=0s/between=0s/locks=1/t=%d", impl, t), Impl: impl,
				Summary: map[string]float64{"total_mops": scale * float64(10+i) / float64(t)}}
			for r := 0; r < 2; r++ {
				m := map[string]float64{"total_mops": c.Summary["total_mops"]}
				for th := 0; th < t; th++ {
					m[fmt.Sprintf("khz_thread_%03d", th)] = scale * float64(1000*(th+1+r))
				}
				c.Rounds = append(c.Rounds, results.Round{Metrics: m})
			}
			e.Configs = append(e.Configs, c)
		}
	}
	return results.Named{Name: name, File: &results.File{Machine: results.Machine{Slug: "m", CPUModel: "Test CPU", LogicalCPUs: 2}, Experiments: []*results.Experiment{e}}}
}

func TestLockPlot(t *testing.T) {
	_, size := outDir(t)
	for _, in := range [][]results.Named{{lockInput("a.json", 1)}, {lockInput("a.json", 1), lockInput("b.json", 2)}} {
		for _, f := range []string{"svg", "png"} {
			b, err := Render(in, f, size)
			if err != nil || len(b) == 0 {
				t.Fatalf("%d files, %s: %v", len(in), f, err)
			}
			if f == "svg" && !strings.Contains(string(b), "c-pthread") {
				t.Errorf("svg lacks the c-pthread label")
			}
		}
	}
	empty := results.Named{Name: "e.json", File: &results.File{Experiments: []*results.Experiment{{Name: "lock"}}}}
	var ie *InputError
	if _, err := Render([]results.Named{empty}, "svg", size); !errors.As(err, &ie) {
		t.Errorf("empty lock experiment: %v, want an InputError", err)
	}
}

// The distribution panel's labels never print over each other: a default
// lock run's eight implementations from two files (16 boxes, "b:
// rust-parking_lot" among them) stand upright; three from one file stay
// level, where they fit side by side.
func TestLockLabelsUpright(t *testing.T) {
	all := chosen{keep: func(*results.Config) bool { return true }}
	for _, tc := range []struct {
		in      []results.Named
		upright bool
	}{
		{[]results.Named{lockInputImpls("a.json", 1, 8), lockInputImpls("b.json", 2, 8)}, true},
		{[]results.Named{lockInput("a.json", 1)}, false},
	} {
		p, err := lockDistribution(tc.in, "lock", "/in=0s/between=0s/locks=1", "OS threads", all, newStyler(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if upright := p.X.Tick.Label.Rotation != 0; upright != tc.upright {
			t.Errorf("%d files: labels upright %v, want %v", len(tc.in), upright, tc.upright)
		}
		if !tc.upright {
			continue
		}
		// Upright, a label needs its line's height, not its width: the
		// boxes' ticks are that far apart at crowdedWidth.
		ticks := p.X.Tick.Marker.(plot.ConstantTicks)
		h := p.X.Tick.Label.Font.Size * 1.2 // a line of text
		if vg.Points(crowdedWidth)/vg.Length(len(ticks)) < h {
			t.Errorf("%d upright labels %v tall each do not fit %v points", len(ticks), h, crowdedWidth)
		}
	}
}
