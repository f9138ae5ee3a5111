package driver

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/parkbench/parkbench/internal/parkers"
	"github.com/parkbench/parkbench/internal/results"
)

func TestMedianOfRounds(t *testing.T) {
	s := MedianOfRounds([]map[string]float64{{"a": 1, "b": 9}, {"a": 3}, {"a": 2}, {"a": 7}})
	if s["a"] != 2.5 || s["b"] != 9 || len(s) != 2 {
		t.Errorf("MedianOfRounds = %v, want a 2.5 (mean of the middle two), b 9", s)
	}
}

func TestRecordAllClamps(t *testing.T) {
	h := NewHist()
	RecordAll(h, -5, 0, 100, HistHighest*10)
	if h.TotalCount() != 4 || h.Min() != HistLowest {
		t.Errorf("count %d min %d: values outside the range must be clamped, not lost", h.TotalCount(), h.Min())
	}
	m := map[string]float64{}
	HistMetrics(h, m)
	if m[results.MSamples] != 4 {
		t.Errorf("HistMetrics samples = %v", m[results.MSamples])
	}
	if _, err := results.EncodeHist(h); err != nil {
		t.Error(err)
	}
}

func TestOptionErrorsNameTheField(t *testing.T) {
	var oe *OptionError
	_, _, err := ResolvePlacements("Placements", []string{"sideways"})
	if !errors.As(err, &oe) || oe.Field != "Placements" {
		t.Errorf("ResolvePlacements: %v, want an OptionError on Placements", err)
	}
	got, explicit, err := ResolvePlacements("Placements", []string{SameCore, All})
	if err != nil || !slices.Equal(got, Placements) || !explicit[SameCore] || explicit[Unpinned] {
		t.Errorf("ResolvePlacements(same-core, all) = %v %v %v", got, explicit, err)
	}
	for _, name := range []string{"nosuch", parkers.NameWasm} {
		if _, err := LotParker("LotParker", name); !errors.As(err, &oe) || oe.Field != "LotParker" {
			t.Errorf("LotParker(%q): %v, want an OptionError on LotParker", name, err)
		}
	}
	if b, err := LotParker("LotParker", ""); err != nil || b.Name == "" {
		t.Errorf("LotParker(\"\") = %v, %v: want the lot's current backend", b.Name, err)
	}
	if err := CheckCount("Rounds", "rounds", 0, 1, 10); !errors.As(err, &oe) || oe.Field != "Rounds" {
		t.Errorf("CheckCount: %v", err)
	}
}

// TestCheckChoice: a listed value passes; anything else, All included
// where it is not taken, is refused on the field in the one wording.
func TestCheckChoice(t *testing.T) {
	valid := []string{"uniform", "burst"}
	for _, tc := range []struct {
		v, want, wantAll string
	}{
		{"burst", "", ""},
		{All, `unknown arrival "all"; valid: uniform, burst`, ""},
		{"poisson", `unknown arrival "poisson"; valid: uniform, burst`, `unknown arrival "poisson"; valid: uniform, burst, or all`},
		{"", `unknown arrival ""; valid: uniform, burst`, `unknown arrival ""; valid: uniform, burst, or all`},
	} {
		for _, c := range []struct {
			check func(field, what, v string, valid []string) error
			want  string
		}{{CheckChoice, tc.want}, {CheckChoiceOrAll, tc.wantAll}} {
			err := c.check("Arrival", "arrival", tc.v, valid)
			var oe *OptionError
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%q: refused: %v", tc.v, err)
			case c.want != "" && (!errors.As(err, &oe) || oe.Field != "Arrival" || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%q: %v, want an OptionError on Arrival saying %q", tc.v, err, c.want)
			}
		}
	}
}

func TestProgressStage(t *testing.T) {
	var nilP Progress
	nilP.Report(1, 2, "x") // must not panic
	if nilP.Stage("a") != nil {
		t.Error("a nil Progress staged must stay nil")
	}
	var got string
	p := Progress(func(_, _ int, label string) { got = label })
	p.Stage("herd").Report(0, 1, "lot/unpinned")
	if got != "herd lot/unpinned" {
		t.Errorf("label %q", got)
	}
}

func TestCatalogResolve(t *testing.T) {
	type item struct{ name, why, never string }
	c := Catalog[item]{
		Items:   []item{{"a", "", ""}, {"b", "no b here", ""}, {"c", "", "c never runs"}, {"d", "", ""}},
		Info:    func(it item) ImplInfo { return ImplInfo{Name: it.name, Why: it.why} },
		Never:   func(it item) string { return it.never },
		Aliases: []Alias{{Name: "ad", Names: []string{"a", "d"}}},
	}
	names := func(s Selection[item]) []string {
		var out []string
		for _, it := range s.Items {
			out = append(out, it.name)
		}
		return out
	}
	for _, in := range [][]string{nil, {All}} {
		s, err := c.Resolve("Impls", in)
		if err != nil || !slices.Equal(names(s), []string{"a", "d"}) || s.Explicit {
			t.Errorf("Resolve(%v) = %v %v explicit %v", in, names(s), err, s.Explicit)
		}
		// One note for what never runs, one line for what does not run here.
		if len(s.Unavailable) != 1 || len(s.Warnings) != 0 || len(s.Notes) != 2 || !strings.Contains(s.Notes[1], "b") {
			t.Errorf("Resolve(%v): unavailable %q warnings %q notes %q: want b in one note line, c noted", in, s.Unavailable, s.Warnings, s.Notes)
		}
	}
	s, err := c.Resolve("Impls", []string{"d", All})
	if err != nil || !slices.Equal(names(s), []string{"d", "a"}) {
		t.Errorf("Resolve(d, all) = %v %v: want each once, in the order named", names(s), err)
	}
	s, err = c.Resolve("Impls", []string{"ad"})
	if err != nil || !slices.Equal(names(s), []string{"a", "d"}) || !s.Explicit {
		t.Errorf("Resolve(ad) = %v %v", names(s), err)
	}
	for in, want := range map[string]string{
		"x": `unknown implementation "x"; valid names: a, b, c, d, ad, or all`,
		"b": `implementation "b" is not available here: no b here`,
		"c": `implementation "c" is not run: c never runs`,
		"a": `implementation "a" is named twice; each is one configuration, give it once`,
	} {
		list := []string{in}
		if in == "a" {
			list = []string{"a", "a"}
		}
		var oe *OptionError
		_, err := c.Resolve("Impls", list)
		if !errors.As(err, &oe) || oe.Field != "Impls" || err.Error() != want {
			t.Errorf("Resolve(%v) = %v, want an OptionError on Impls: %s", list, err, want)
		}
	}
	if !c.Runs("a") || c.Runs("b") || c.Runs("c") || c.Runs("x") {
		t.Error("Runs")
	}
}

func TestForeignWarning(t *testing.T) {
	for _, c := range []struct {
		f    *results.Foreign
		warn bool
	}{{nil, false}, {&results.Foreign{Fraction: -1}, false}, {&results.Foreign{Fraction: ForeignNoisy}, false}, {&results.Foreign{Fraction: 0.3}, true}} {
		if got := ForeignWarning(c.f) != ""; got != c.warn {
			t.Errorf("ForeignWarning(%+v) warns %v, want %v", c.f, got, c.warn)
		}
	}
}

func TestRepeatDistinct(t *testing.T) {
	for _, c := range []struct {
		in           []int
		first, again int
		ok           bool
		distinct     []int
	}{
		{nil, 0, 0, false, nil},
		{[]int{4}, 0, 0, false, []int{4}},
		{[]int{3, 1, 2}, 0, 0, false, []int{3, 1, 2}},
		{[]int{2, 1, 2, 1}, 0, 2, true, []int{2, 1}},
		{[]int{1, 2, 2}, 1, 2, true, []int{1, 2}},
	} {
		f, a, ok := Repeat(c.in)
		if f != c.first || a != c.again || ok != c.ok {
			t.Errorf("Repeat(%v) = %d, %d, %v; want %d, %d, %v", c.in, f, a, ok, c.first, c.again, c.ok)
		}
		if got := Distinct(c.in); !slices.Equal(got, c.distinct) {
			t.Errorf("Distinct(%v) = %v, want %v", c.in, got, c.distinct)
		}
	}
	type cfg struct{ key, v string }
	got := DistinctBy([]cfg{{"a", "1"}, {"b", "2"}, {"a", "3"}}, func(c cfg) string { return c.key })
	if len(got) != 2 || got[0].v != "1" || got[1].v != "2" {
		t.Errorf("DistinctBy kept %v, want the first of each key", got)
	}
}

func TestRecordForeignLoad(t *testing.T) {
	for _, c := range []struct {
		f       *results.Foreign
		kept    bool
		warning bool
	}{
		{nil, false, false},
		{&results.Foreign{Fraction: -1}, false, false},
		{&results.Foreign{Fraction: 0.01}, true, false},
		{&results.Foreign{Fraction: 0.5}, true, true},
	} {
		cfg := &results.Config{}
		RecordForeignLoad(cfg, c.f)
		if (cfg.Foreign != nil) != c.kept || (len(cfg.Coded) > 0) != c.warning {
			t.Errorf("RecordForeignLoad(%+v): foreign %v, warnings %+v", c.f, cfg.Foreign, cfg.Coded)
		}
	}
}
