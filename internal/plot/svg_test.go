package plot

import (
	"github.com/parkbench/parkbench/internal/results"
	"html"
	"image/color"
	"math"
	"regexp"
	"slices"
	"testing"
)

// svgTexts returns every text element of an SVG, unescaped, in order.
func svgTexts(b []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`>([^<>]+)</text>`).FindAllSubmatch(b, -1) {
		out = append(out, html.UnescapeString(string(m[1])))
	}
	return out
}

// TestSVGSeriesAndLabels checks what a reader of the SVG sees: the title,
// a panel per placement (latency) or figure (herd), the axis labels and one
// legend entry per implementation.
func TestSVGSeriesAndLabels(t *testing.T) {
	for _, c := range []struct {
		fixture string
		want    []string
	}{
		{"v1-latency.json", []string{"latency: wake latency by percentile", "cross-core", "same-core", "percentile", "99.9%", "one-way wake latency (µs)"}},
		{"v1-herd.json", []string{"herd: against waiters N", "notify_all -> first waiter holds the lock", "notify_all -> last waiter released", "waiters N", "first waiter (µs)", "total (µs)", "64"}},
	} {
		in := fixture(t, c.fixture)
		b, err := Render([]results.Named{in}, "svg", Options{})
		if err != nil {
			t.Fatal(err)
		}
		texts := svgTexts(b)
		want := slices.Clone(c.want)
		for _, cf := range in.File.Experiments[0].Configs {
			want = append(want, cf.Impl)
		}
		for _, w := range want {
			if !slices.Contains(texts, w) {
				t.Errorf("%s: the SVG has no text %q; it has %q", c.fixture, w, texts)
			}
		}
	}
}

// No two labels of a figure share a colour: plot --config=cross-core
// draws 25 lines, more than the palette's 12; the colours past it stay
// as far apart as the palette's own (weighted RGB distance) up to 32
// labels, and stay distinct past that; a label keeps its colour from
// figure to figure.
func TestColoursDistinct(t *testing.T) {
	seen := map[color.Color]int{}
	closest := func(n int) float64 {
		d := math.Inf(1)
		for i := range n {
			for j := range i {
				d = min(d, colorDistance(colorOf(i), colorOf(j)))
			}
		}
		return d
	}
	for i := range 40 {
		c := colorOf(i)
		if j, ok := seen[c]; ok {
			t.Fatalf("labels %d and %d share the colour %v", j, i, c)
		}
		seen[c] = i
	}
	// About 100 on this scale (0 to about 765) is a difference seen at a
	// glance between two 2-point lines: the palette's closest pair is 108.
	if p, d := closest(len(palette)), closest(32); d < 100 || p < 100 {
		t.Errorf("the closest two of 32 colours are %.0f apart (of the palette's %.0f), want at least 100", d, p)
	}
	if colorOf(20) != colorOf(20) {
		t.Error("a label's colour changed between calls")
	}
}
