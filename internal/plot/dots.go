package plot

import (
	"cmp"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// plotDots is the kind of the figures drawn for an experiment whose
// description plots none (selfwake's ns per pair, rwlock's read and write
// throughput): one figure per configuration, a dot chart (drawnSpecs).
const plotDots = "dots"

// mostDotPanels is how many figures a dot chart draws side by side.
const mostDotPanels = 3

// drawnSpecs are the figures of a description that plot draws: those
// with a PlotSpec, or, when none has one, its judged figures (else its
// main one) as dot charts, at most mostDotPanels.
func drawnSpecs(specs []results.MetricSpec) []results.MetricSpec {
	if out := plotSpecs(specs); len(out) > 0 {
		return out
	}
	var out []results.MetricSpec
	for _, pass := range []func(m results.MetricSpec) bool{
		func(m results.MetricSpec) bool { return m.Judged },
		func(m results.MetricSpec) bool { return m.Main },
	} {
		for _, m := range specs {
			if pass(m) && !m.Diagnostic && m.Section == "" && len(out) < mostDotPanels {
				m.Plot = &results.PlotSpec{Kind: plotDots, Title: m.Header, Axis: dotAxis(m)}
				out = append(out, m)
			}
		}
		if len(out) > 0 {
			break
		}
	}
	return out
}

// dotAxis names a dot chart's value axis: the figure and its unit.
func dotAxis(m results.MetricSpec) string {
	switch m.Unit {
	case results.UnitNanos:
		return m.Header + " (ns)"
	case results.UnitMicros:
		return m.Header + " (µs)"
	}
	return m.Header
}

// dotRowHeight is the room a row of a dot chart takes.
const dotRowHeight = 15 // points

// dotFigure draws each figure as a dot chart (Cleveland's): one row per
// configuration, sorted by the first figure's value in the first file,
// the configuration named on the axis (no legend to look up), a dot at
// the median of its rounds and a bar over the rounds' range, the floor's
// value (the figure's C or syscall reference) a dashed vertical line. With
// several files, a colour and marker per file, a row per configuration of
// any. The value axis is logarithmic when the values span more than 20x.
func dotFigure(in []results.Named, exp string, specs []results.MetricSpec, sel chosen) (*figure, error) {
	var keys []string
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
			if _, ok := c.Summary[specs[0].Key]; ok && sel.keep(c) && !slices.Contains(keys, c.Key) {
				keys = append(keys, c.Key)
			}
		}
	}
	if len(keys) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no configurations with %s", in[0].Name, exp, specs[0].Key)
	}
	first := in[0].File.Experiment(exp)
	at := func(e *results.Experiment, key string) *results.Config {
		for _, c := range e.Configs {
			if c.Key == key {
				return c
			}
		}
		return nil
	}
	value := func(m results.MetricSpec, v float64) float64 {
		if m.Unit == results.UnitMicros {
			return v / 1000
		}
		return v
	}
	// Sorted by the first figure, the first file's value; the best at
	// the top (gonum's y grows upwards: the best row has the largest y).
	rank := func(k string) float64 {
		if c := at(first, k); c != nil {
			if v, ok := c.Summary[specs[0].Key]; ok {
				return v
			}
		}
		return math.Inf(1)
	}
	slices.SortStableFunc(keys, func(a, b string) int {
		if specs[0].HigherIsBetter() {
			return cmp.Compare(rank(a), rank(b))
		}
		return cmp.Compare(rank(b), rank(a))
	})
	labels, common := textfmt.ShortKeys(keys)
	var ticks plot.ConstantTicks
	for i, l := range labels {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: l})
	}
	f := &figure{cols: len(specs), rowHeight: vg.Points(float64(dotRowHeight*len(keys) + 110))}
	if len(common) > 0 {
		f.note = "every row: " + strings.Join(common, "/")
	}
	fileColor := func(i int) color.Color { return colorOf(i) }
	for _, m := range specs {
		p := basePlot(m.Plot.Title)
		p.X.Label.Text = m.Plot.Axis
		p.Y.Tick.Marker = ticks
		p.Y.Min, p.Y.Max = -0.7, float64(len(keys))-0.3
		p.Y.Tick.Label.Font.Size = vg.Points(10)
		lo, hi := math.Inf(1), math.Inf(-1)
		type mark struct {
			file      int
			y, v      float64
			low, high float64
		}
		var marks []mark
		floors := map[int]float64{}
		for fi, n := range in {
			e := n.File.Experiment(exp)
			for row, k := range keys {
				c := at(e, k)
				if c == nil || !sel.keep(c) {
					continue
				}
				v, ok := c.Summary[m.Key]
				if !ok {
					continue
				}
				mk := mark{file: fi, y: float64(row), v: value(m, v), low: value(m, v), high: value(m, v)}
				for _, r := range c.Rounds {
					if x, ok := r.Metrics[m.Key]; ok {
						mk.low, mk.high = math.Min(mk.low, value(m, x)), math.Max(mk.high, value(m, x))
					}
				}
				if len(in) > 1 {
					// The files' dots of a row apart by a third of a row.
					mk.y += 0.3 * (float64(fi) - float64(len(in)-1)/2) / float64(len(in))
				}
				marks = append(marks, mk)
				lo, hi = math.Min(lo, mk.low), math.Max(hi, mk.high)
				if fk := m.FloorKey(c); fk != "" {
					if fc := at(e, fk); fc != nil {
						if fv, ok := fc.Summary[m.Key]; ok {
							floors[fi] = value(m, fv)
						}
					}
				}
			}
		}
		if len(marks) == 0 {
			continue
		}
		logX := lo > 0 && hi/lo > 20
		x := func(v float64) float64 {
			if logX {
				return math.Log10(math.Max(v, lo))
			}
			return v
		}
		for fi := range in {
			fv, ok := floors[fi]
			if !ok {
				continue
			}
			l, err := plotter.NewLine(plotter.XYs{{X: x(fv), Y: -0.7}, {X: x(fv), Y: float64(len(keys)) - 0.3}})
			if err != nil {
				return nil, inputErrorf("%s: %s floor: %v", in[fi].Name, exp, err)
			}
			l.LineStyle = draw.LineStyle{Color: fileColor(fi), Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
			p.Add(l)
		}
		for _, mk := range marks {
			if mk.high > mk.low {
				l, err := plotter.NewLine(plotter.XYs{{X: x(mk.low), Y: mk.y}, {X: x(mk.high), Y: mk.y}})
				if err != nil {
					return nil, inputErrorf("%s: %s: %v", in[mk.file].Name, exp, err)
				}
				l.LineStyle = draw.LineStyle{Color: fileColor(mk.file), Width: vg.Points(1.5)}
				p.Add(l)
			}
			s, err := plotter.NewScatter(plotter.XYs{{X: x(mk.v), Y: mk.y}})
			if err != nil {
				return nil, inputErrorf("%s: %s: %v", in[mk.file].Name, exp, err)
			}
			s.GlyphStyle = draw.GlyphStyle{Color: fileColor(mk.file), Radius: vg.Points(3.5), Shape: glyphs[mk.file%len(glyphs)]}
			p.Add(s)
		}
		if logX {
			pad := 0.04 * math.Max(math.Log10(hi/lo), 0.5)
			p.X.Min, p.X.Max = math.Log10(lo)-pad, math.Log10(hi)+pad
			p.X.Tick.Marker = dotLogTicks{sparse: len(specs) > 1}
			p.X.Label.Text += ", log scale"
		} else {
			p.X.Min, p.X.Max = 0, hi*1.05
			p.X.Tick.Marker = linearTicks{}
		}
		f.panels = append(f.panels, p)
	}
	if len(f.panels) == 0 {
		return nil, inputErrorf("%s: the %s experiment has nothing to draw", in[0].Name, exp)
	}
	better := "the lowest"
	if specs[0].HigherIsBetter() {
		better = "the highest"
	}
	f.title = specs[0].Header + " per configuration, " + better + " at the top"
	if len(specs) > 1 {
		f.title = "per configuration, in order of " + specs[0].Header + ", " + better + " at the top"
	}
	// The legend: what a mark means, then the files.
	l := newLegend()
	for fi, n := range in {
		name := "median of rounds"
		if len(in) > 1 {
			name = shortName(n.Name)
		}
		l.Add(name, glyphThumb{draw.GlyphStyle{Color: fileColor(fi), Radius: vg.Points(3.5), Shape: glyphs[fi%len(glyphs)]}})
		if len(in) > 1 {
			l.Add("    " + machineName(n.File.Machine))
		}
	}
	ink := color.Color(color.Black)
	if len(in) == 1 {
		ink = fileColor(0)
	}
	l.Add("rounds' range", lineThumb{draw.LineStyle{Color: ink, Width: vg.Points(1.5)}})
	if floor := specs[0].Floor; floor != "" {
		l.Add("floor: "+floor, lineThumb{draw.LineStyle{Color: ink, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}})
	}
	f.legend = l
	return f, nil
}

// dotLogTicks are narrowLogTicks; sparse (panels side by side, about 250
// points wide each), an axis of more than two decades labels its powers of
// ten only: 1, 2 and 5 of every decade print over each other there.
type dotLogTicks struct{ sparse bool }

func (d dotLogTicks) Ticks(min, max float64) []plot.Tick {
	ts := narrowLogTicks{}.Ticks(min, max)
	if !d.sparse || max-min <= 2 {
		return ts
	}
	for i := range ts {
		if frac := ts[i].Value - math.Floor(ts[i].Value); frac > 1e-9 && frac < 1-1e-9 {
			ts[i].Label = ""
		}
	}
	return ts
}
