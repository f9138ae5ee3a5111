package plot

import (
	"html"
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
		b, err := Render([]Input{in}, "svg", Options{})
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
