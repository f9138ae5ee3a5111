package plot

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// Set PARKBENCH_PLOT_DIR to keep the images, at full size, for looking at
// them; otherwise PNGs are drawn small (rasterizing is slow under -race).
func outDir(t *testing.T) (string, Options) {
	if d := os.Getenv("PARKBENCH_PLOT_DIR"); d != "" {
		return d, Options{}
	}
	return t.TempDir(), Options{Width: 5 * vg.Inch, Height: 3 * vg.Inch}
}

func fixture(t *testing.T, name string) results.Named {
	p := filepath.Join("..", "results", "testdata", name)
	f, err := results.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return results.Named{Name: p, File: f}
}

func TestPlots(t *testing.T) {
	dir, size := outDir(t)
	other := resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4)
	s := resultstest.Spec{Machine: other, Scale: 0.6, Spread: 0.05, Seed: 9, Samples: 1000}
	otherHerd := results.Named{Name: "other/herd.json", File: resultstest.File(s, resultstest.Herd(s))}
	otherLat := results.Named{Name: "other/latency.json", File: resultstest.File(s, resultstest.Latency(s))}
	for _, c := range []struct {
		out string
		in  []results.Named
		exp string
	}{
		{"latency.png", []results.Named{fixture(t, "v1-latency.json")}, ""},
		{"latency.svg", []results.Named{fixture(t, "v1-latency.json")}, ""},
		{"timeout.png", []results.Named{fixture(t, "v1-timeout.json")}, ""},
		{"herd.png", []results.Named{fixture(t, "v1-herd.json")}, ""},
		{"herd.svg", []results.Named{fixture(t, "v1-herd.json")}, ""},
		{"suite-latency.svg", []results.Named{fixture(t, "v1-suite.json")}, "latency"},
		{"two-herd.png", []results.Named{fixture(t, "v1-herd.json"), otherHerd}, ""},
		{"two-latency.svg", []results.Named{fixture(t, "v1-latency.json"), otherLat}, ""},
		{"real-herd.svg", []results.Named{fixture(t, "v1-run-quick.json")}, "herd"},
		{"real-latency.svg", []results.Named{fixture(t, "v1-run-quick.json")}, "latency"},
	} {
		p := filepath.Join(dir, c.out)
		opt := size
		opt.Experiment = c.exp
		if err := WriteFile(p, c.in, opt); err != nil {
			t.Fatalf("%s: %v", c.out, err)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(p, ".png") {
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil || img.Bounds().Dx() < 400 {
				t.Fatalf("%s: %v", c.out, err)
			}
		} else if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("99.9%")) && strings.Contains(c.out, "latency") {
			t.Fatalf("%s: not an SVG with percentile labels", c.out)
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("left %s behind", e.Name())
		}
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	lat := fixture(t, "v1-latency.json")
	suite := fixture(t, "v1-suite.json")
	// stacks records no figures: nothing to draw.
	noFigures := resultstest.File(resultstest.Spec{}, &results.Experiment{Name: "stacks"})
	corrupt := fixture(t, "v1-latency.json")
	corrupt.File.Experiments[0].Configs[0].Rounds[0].Histogram = "HISTFAAAACR4nJNpmSzMwMDAxAABzFCaEUzOmNZg"
	for _, c := range []struct {
		out  string
		in   []results.Named
		exp  string
		want string
	}{
		{"x.jpg", []results.Named{lat}, "", `unknown image format ".jpg"`},
		{"x", []results.Named{lat}, "", "unknown image format"},
		{"x.png", []results.Named{suite}, "", "holds several experiments (latency, selfwake, herd): choose one with --experiment"},
		{"x.png", []results.Named{lat}, "herd", "no herd experiment"},
		{"x.png", []results.Named{lat}, "stacks", `cannot plot experiment "stacks"`},
		{"x.png", []results.Named{{Name: "stacks.json", File: noFigures}}, "", "nothing to plot"},
		{"x.png", []results.Named{corrupt}, "", "corrupt histogram"},
		{"x.png", nil, "", "no result files"},
	} {
		err := WriteFile(filepath.Join(dir, c.out), c.in, Options{Experiment: c.exp})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: got %v, want an InputError with %q", c.out, c.exp, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("bad input left files: %v", entries)
	}
}
