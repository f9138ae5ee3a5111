package plot

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
)

func lockInput(name string, scale float64) Input {
	e := &results.Experiment{Name: "lock"}
	for i, impl := range []string{"lot", "sync", "c-pthread"} {
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
	return Input{name, &results.File{Machine: results.Machine{Slug: "m", CPUModel: "Test CPU", LogicalCPUs: 2}, Experiments: []*results.Experiment{e}}}
}

func TestLockPlot(t *testing.T) {
	_, size := outDir(t)
	for _, in := range [][]Input{{lockInput("a.json", 1)}, {lockInput("a.json", 1), lockInput("b.json", 2)}} {
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
	empty := Input{"e.json", &results.File{Experiments: []*results.Experiment{{Name: "lock"}}}}
	var ie *InputError
	if _, err := Render([]Input{empty}, "svg", size); !errors.As(err, &ie) {
		t.Errorf("empty lock experiment: %v, want an InputError", err)
	}
}
