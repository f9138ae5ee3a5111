package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/results/resultstest"
)

// manyImpls is a latency result with the implementations of the A/B
// gate's profile, their C floor and extra ones, at two placements.
func manyImpls(extra int) results.Named {
	s := resultstest.Spec{Samples: 200, Seed: 5, Floors: true}
	e := resultstest.Latency(s)
	base := slices.Clone(e.Configs)
	for i, name := range append([]string{"lot"}, func() []string {
		var n []string
		for k := range extra {
			n = append(n, fmt.Sprintf("extra-%d", k))
		}
		return n
	}()...) {
		for _, c := range base[:2] { // futex at both placements
			cc := *c
			cc.Impl = name
			cc.Key = name + "/" + c.Placement
			cc.Summary = map[string]float64{results.MMedian: c.Summary[results.MMedian] * (1 + 0.1*float64(i))}
			e.Configs = append(e.Configs, &cc)
		}
	}
	return results.Named{Name: "many.json", File: resultstest.File(s, e)}
}

// legendTexts are the SVG's texts right of the panels: the legend.
func svgOf(t *testing.T, in []results.Named, opt Options) []string {
	t.Helper()
	b, err := Render(in, "svg", opt)
	if err != nil {
		t.Fatal(err)
	}
	return svgTexts(b)
}

// TestDefaultSelection: with more implementations than a panel draws, the
// default is the caller's preferred rows of the experiment (here the
// gate's) and their floor, and the title says how many configurations
// that is and how to get the others.
func TestDefaultSelection(t *testing.T) {
	texts := svgOf(t, []results.Named{manyImpls(8)}, Options{Preferred: map[string][]string{"latency": {"futex", "lot", "std"}}})
	for _, want := range []string{"futex", "lot", "std", "c-futex"} {
		if !slices.Contains(texts, want) {
			t.Errorf("the headline %s is not drawn: %q", want, texts)
		}
	}
	for _, not := range []string{"pthread", "channel", "extra-0"} {
		if slices.Contains(texts, not) {
			t.Errorf("%s drawn by default", not)
		}
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, "8 of 28 configurations") }) {
		t.Errorf("the title does not say what was left out: %q", texts)
	}
	// Few implementations: every one.
	texts = svgOf(t, []results.Named{fixture(t, "v1-latency.json")}, Options{})
	for _, want := range []string{"futex", "pthread", "std", "channel"} {
		if !slices.Contains(texts, want) {
			t.Errorf("%s left out of a small result: %q", want, texts)
		}
	}
}

// With several files a panel draws an implementation once per file that
// has it: the default choice counts lines, not implementations, so three
// files of a few implementations each stay within mostLines a panel (three
// files of four: every one would be 12 lines), and say what they left out.
func TestDefaultSelectionCountsLines(t *testing.T) {
	var in []results.Named
	for i := range 3 {
		s := resultstest.Spec{Samples: 50, Seed: uint64(i + 1), Floors: true}
		in = append(in, results.Named{Name: fmt.Sprintf("f%d.json", i), File: resultstest.File(s, resultstest.Latency(s))})
	}
	specs, _ := in[0].File.Experiment("latency").Specs()
	specs = drawnSpecs(specs) // as Render chooses: the headline figure first
	var impls []string
	for _, c := range in[0].File.Experiment("latency").Configs {
		if !slices.Contains(impls, c.Impl) {
			impls = append(impls, c.Impl)
		}
	}
	if n := lines(in, "latency", impls); n <= mostLines {
		t.Fatalf("the fixture draws %d lines with every implementation: not over %d", n, mostLines)
	}
	for _, pref := range [][]string{nil, {"futex", "lot", "std"}} {
		sel, err := selection(in, "latency", specs[0], Options{Preferred: map[string][]string{"latency": pref}})
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, c := range in[0].File.Experiment("latency").Configs {
			if sel.keep(c) && !slices.Contains(kept, c.Impl) {
				kept = append(kept, c.Impl)
			}
		}
		if n := lines(in, "latency", kept); n > mostLines || len(kept) == 0 || sel.note == "" {
			t.Errorf("preferred %v: %d lines (%v), note %q; want 1 to %d and a note", pref, n, kept, sel.note, mostLines)
		}
		if pref != nil && !slices.Contains(kept, "c-futex") {
			t.Errorf("preferred %v: kept %v without their floor c-futex", pref, kept)
		}
	}
}

// TestFilters: --impl and --config choose the lines and the panels; a
// filter that matches nothing is bad input naming the implementations.
func TestFilters(t *testing.T) {
	in := []results.Named{manyImpls(8)}
	texts := svgOf(t, in, Options{Impls: []string{"extra-3", "pthread"}, Configs: []string{"same-core"}})
	if !slices.Contains(texts, "extra-3") || !slices.Contains(texts, "pthread") || slices.Contains(texts, "futex") {
		t.Errorf("--impl: %q", texts)
	}
	if !slices.Contains(texts, "same-core") || slices.Contains(texts, "cross-core") {
		t.Errorf("--config=same-core drew another panel: %q", texts)
	}
	texts = svgOf(t, in, Options{Configs: []string{"lot/*", "std/cross-core"}})
	if !slices.Contains(texts, "lot") || !slices.Contains(texts, "std") || slices.Contains(texts, "c-futex") {
		t.Errorf("--config globs and keys: %q", texts)
	}
	_, err := Render(in, "svg", Options{Impls: []string{"nosuch"}})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "extra-7") {
		t.Errorf("no match: %v", err)
	}
}

// TestLegendNeverCut: a legend longer than the default height makes the
// image taller, and with several files each file is named with its
// machine.
func TestLegendNeverCut(t *testing.T) {
	longtest.Skip(t)
	b, err := Render([]results.Named{manyImpls(40)}, "png", Options{Impls: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if h := img.Bounds().Dy(); h <= 6*110 {
		t.Errorf("46 legend entries in an image %d pixels tall: the legend is cut", h)
	}
	other := resultstest.Machine("AMD EPYC 7763 64-Core Processor", 4)
	s := resultstest.Spec{Machine: other, Scale: 0.6, Seed: 9, Samples: 300}
	texts := svgOf(t, []results.Named{fixture(t, "v1-latency.json"), {Name: "other/new.json", File: resultstest.File(s, resultstest.Latency(s))}}, Options{})
	for _, want := range []string{"v1-latency", "new", "    Intel Xeon Platinum 8375C @ 2.90GHz, 2 CPUs", "    AMD EPYC 7763 64-Core, 4 CPUs"} {
		if !slices.Contains(texts, want) {
			t.Errorf("two files: the legend lacks %q: %q", want, texts)
		}
	}
}

// TestParamFacets: more groups of several settings than a panel draws
// (herd with five notify settings) make a panel per setting with a colour
// per implementation; too many panels draw the first figure only and say
// how to get the other; --config picks one setting with every figure.
func TestParamFacets(t *testing.T) {
	s := resultstest.Spec{Samples: 100, Seed: 2}
	e := resultstest.Herd(s)
	base := slices.Clone(e.Configs)
	e.Configs = nil
	settings := []string{"a", "b", "c", "d", "e"}
	for _, set := range settings {
		for _, c := range base {
			cc := *c
			cc.Key = strings.Replace(c.Key, "/n=", "/set="+set+"/n=", 1)
			e.Configs = append(e.Configs, &cc)
		}
	}
	in := []results.Named{{Name: "herd.json", File: resultstest.File(s, e)}}
	texts := svgOf(t, in, Options{})
	for _, set := range settings {
		if !slices.Contains(texts, "set="+set) {
			t.Errorf("no panel for set=%s: %q", set, texts)
		}
	}
	if !slices.Contains(texts, "lot") || slices.Contains(texts, "lot/set=a") {
		t.Errorf("the legend is not one entry per implementation: %q", texts)
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "--config=SETTING (e.g. --config=set=a) also draws") }) {
		t.Errorf("the title does not say how to draw the other figure: %q", texts)
	}
	texts = svgOf(t, in, Options{Configs: []string{"set=c"}})
	if !slices.Contains(texts, "notify_all -> first waiter holds the lock") || !slices.Contains(texts, "notify_all -> last waiter released") || !slices.Contains(texts, "every line: set=c") {
		t.Errorf("--config=set=c: %q", texts)
	}
}
