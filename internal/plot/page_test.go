package plot

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// recordedSuite is a suite recorded on a 2-vCPU AMD EPYC guest: every
// experiment of the default run, as a page shows them.
const recordedSuite = "../../results/linux-amd64-2cpu-amd-epyc-f25m17-vm/suite-20261203T122006Z.json"

// svgGroups splits a figure's SVG into its marked groups (figure.go's
// markGroups): class -> the text of each group, up to the next mark.
func svgGroups(svg []byte) map[string][]string {
	out := map[string][]string{}
	marks := regexp.MustCompile(`<g class="(pb-[a-z]+)">`).FindAllSubmatchIndex(svg, -1)
	for i, m := range marks {
		end := len(svg)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		out[string(svg[m[2]:m[3]])] = append(out[string(svg[m[2]:m[3]])], string(svg[m[1]:end]))
	}
	return out
}

var (
	strokeStyle = regexp.MustCompile(`style="[^"]*stroke:(#[0-9A-F]+)[^"]*stroke-width:2(?:;stroke-dasharray:([0-9.,]+))?[^"]*"`)
	fontSize    = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// linesIn counts a panel's data lines: its distinct 2-point strokes
// (colour and dash pattern; grid lines and axes are thinner).
func linesIn(panel string) int {
	seen := map[string]bool{}
	for _, m := range strokeStyle.FindAllStringSubmatch(panel, -1) {
		seen[m[1]+"/"+m[2]] = true
	}
	return len(seen)
}

// Every figure of a recorded suite, drawn for the page, has at most
// mostLines lines in a panel, a legend in type of legendFont points or
// more, and its panels and legend marked for the browser's check; selfwake
// and rwlock are drawn (dot charts).
func TestPageFigures(t *testing.T) {
	f, err := results.ReadFile(recordedSuite)
	if err != nil {
		t.Fatal(err)
	}
	in := []results.Named{{Name: filepath.Base(recordedSuite), File: f}}
	exps := Experiments(f)
	for _, want := range []string{"latency", "selfwake", "herd", "lock", "rwlock", "wake", "loaded"} {
		if !strings.Contains(" "+strings.Join(exps, " ")+" ", " "+want+" ") {
			t.Errorf("%s: no plot (plotted: %v)", want, exps)
		}
	}
	for _, exp := range exps {
		svg, err := Render(in, "svg", Options{Experiment: exp, Page: true})
		if err != nil {
			t.Fatalf("%s: %v", exp, err)
		}
		if !bytes.Contains(svg, []byte(`viewBox="0 0 900 `)) {
			t.Errorf("%s: not %v points wide", exp, PageWidth)
		}
		g := svgGroups(svg)
		if len(g[markPanel]) == 0 || len(g[markLegend]) != 1 {
			t.Fatalf("%s: %d panels and %d legends marked", exp, len(g[markPanel]), len(g[markLegend]))
		}
		var lines []int
		for _, p := range g[markPanel] {
			lines = append(lines, linesIn(p))
			if n := linesIn(p); n > mostLines {
				t.Errorf("%s: a panel with %d lines, want at most %d", exp, n, mostLines)
			}
		}
		for _, m := range fontSize.FindAllStringSubmatch(g[markLegend][0], -1) {
			if v, _ := strconv.ParseFloat(m[1], 64); v < legendFont {
				t.Errorf("%s: legend type %v pt, want %d or more", exp, v, legendFont)
			}
		}
		t.Logf("%s: %d panels, lines per panel %v", exp, len(lines), lines)
	}
}

// A dot chart names every configuration on its axis, sorted with the best
// at the top, and draws the floor's line; with two files, both.
func TestDotChart(t *testing.T) {
	s := resultstest.Spec{}
	one := results.Named{Name: "sw.json", File: resultstest.File(s, resultstest.Selfwake(s))}
	o := resultstest.Spec{Machine: resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4), Scale: 0.6, Seed: 9}
	two := results.Named{Name: "other/sw.json", File: resultstest.File(o, resultstest.Selfwake(o))}
	for _, in := range [][]results.Named{{one}, {one, two}} {
		svg, err := Render(in, "svg", Options{Page: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range in[0].File.Experiments[0].Configs {
			if !bytes.Contains(svg, []byte(">"+c.Key+"</text>")) {
				t.Errorf("%d files: the chart does not name %s", len(in), c.Key)
			}
		}
		for _, want := range []string{"ns/pair per configuration, the lowest at the top", "floor: syscall", "rounds&#39; range"} {
			if !bytes.Contains(svg, []byte(want)) {
				t.Errorf("%d files: the chart lacks %q", len(in), want)
			}
		}
		if len(in) == 2 && !bytes.Contains(svg, []byte("AMD EPYC 7763")) {
			t.Errorf("two files: the legend does not name the second machine")
		}
	}
}

// Dot charts side by side label only the powers of ten of an axis wider
// than two decades (rwlock's write Mops: 0.01 to 50); alone, or narrower,
// 1, 2 and 5 of every decade.
func TestDotLogTicks(t *testing.T) {
	labels := func(d dotLogTicks, min, max float64) (out []string) {
		for _, tk := range d.Ticks(min, max) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	if got := strings.Join(labels(dotLogTicks{sparse: true}, -2, 1.7), " "); got != "0.01 0.1 1 10" {
		t.Errorf("sparse over 3.7 decades: %s", got)
	}
	if got := labels(dotLogTicks{}, -2, 1.7); len(got) != 12 {
		t.Errorf("alone over 3.7 decades: %v, want 1, 2 and 5 of each decade", got)
	}
	if got := strings.Join(labels(dotLogTicks{sparse: true}, 0.3, 1.7), " "); got != "2 5 10 20 50" {
		t.Errorf("sparse over 1.4 decades: %s", got)
	}
}
