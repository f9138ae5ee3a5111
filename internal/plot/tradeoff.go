package plot

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/results"
)

// tradeoffFigure draws a figure against another (PlotTradeoff: spin's
// median wake latency against the waiter's CPU per wait), both on log
// scales: one panel per placement; in each, one line per value of the
// spec's Param (the gap) through the configurations whose Params carry a
// "budget" (the fixed budgets, in budget order, each point labelled with
// its budget), and every other configuration of that value as a point in
// the line's colour with its implementation's marker. Configurations with
// neither (spin's ping-pong) are left out. The legend gives the lines'
// values in their colours and the implementations' markers in black; with
// several files, a dash pattern per file.
func tradeoffFigure(in []results.Named, exp string, m results.MetricSpec, sel chosen) (*figure, error) {
	xSpec, ok := in[0].File.Experiment(exp).Spec(m.Plot.X)
	if !ok {
		return nil, inputErrorf("%s: the %s experiment's plot names x figure %q, which it does not describe", in[0].Name, exp, m.Plot.X)
	}
	type point struct {
		x, y   float64
		budget string
		order  float64
	}
	type lineKey struct{ panel, value, file string }
	type pointKey struct{ panel, value, impl, file string }
	lines := map[lineKey][]point{}
	points := map[pointKey]point{}
	var panels, values, impls []string
	addTo := func(list *[]string, s string) {
		if !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	scale := func(spec results.MetricSpec, v float64) float64 {
		if spec.IsTime() && spec.Unit == results.UnitMicros {
			v /= 1000
		}
		return math.Max(v, 0.01) // a log axis: 10 ns stands for none
	}
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
			value := c.Params[m.Plot.Param]
			y, okY := c.Summary[m.Key]
			x, okX := c.Summary[xSpec.Key]
			if value == "" || !okX || !okY || !sel.keep(c) {
				continue
			}
			panel := c.Placement
			addTo(&panels, panel)
			addTo(&values, value)
			pt := point{x: scale(xSpec, x), y: scale(m, y)}
			if b, ok := c.Params["budget"]; ok {
				pt.budget, pt.order = b, budgetOrder(b)
				k := lineKey{panel, value, n.Name}
				lines[k] = append(lines[k], pt)
				continue
			}
			addTo(&impls, c.Impl)
			points[pointKey{panel, value, c.Impl, n.Name}] = pt
		}
	}
	if len(lines) == 0 && len(points) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no configurations with %s and %s", in[0].Name, exp, m.Key, xSpec.Key)
	}
	slices.SortFunc(values, func(a, b string) int { return cmp.Compare(durationOrder(a), durationOrder(b)) })
	valueColor := func(v string) color.Color { return colorOf(slices.Index(values, v)) }
	implGlyph := func(i string) draw.GlyphDrawer { return glyphs[(slices.Index(impls, i)+1)%len(glyphs)] }
	fileDash := func(f string) []vg.Length {
		return dashes[max(slices.IndexFunc(in, func(n results.Named) bool { return n.Name == f }), 0)%len(dashes)]
	}
	f := &figure{title: m.Plot.Title, cols: min(len(panels), 2)}
	for _, pn := range panels {
		p := basePlot(pn)
		p.X.Label.Text = xSpec.Header + " (µs, log)"
		if xSpec.Plot != nil && xSpec.Plot.Axis != "" {
			p.X.Label.Text = xSpec.Plot.Axis
		}
		p.Y.Label.Text = m.Plot.Axis
		lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
		see := func(pt point) {
			lo[0], hi[0] = math.Min(lo[0], pt.x), math.Max(hi[0], pt.x)
			lo[1], hi[1] = math.Min(lo[1], pt.y), math.Max(hi[1], pt.y)
		}
		for fi, n := range in {
			for _, v := range values {
				pts := lines[lineKey{pn, v, n.Name}]
				if len(pts) == 0 {
					continue
				}
				slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(a.order, b.order) })
				xy := make(plotter.XYs, len(pts))
				var labels []string
				for i, pt := range pts {
					see(pt)
					xy[i] = plotter.XY{X: math.Log10(pt.x), Y: math.Log10(pt.y)}
					labels = append(labels, pt.budget)
				}
				l, s, err := plotter.NewLinePoints(xy)
				if err != nil {
					return nil, inputErrorf("%s: %s %s: %v", n.Name, exp, v, err)
				}
				l.LineStyle = draw.LineStyle{Color: valueColor(v), Width: vg.Points(2), Dashes: fileDash(n.Name)}
				s.GlyphStyle = draw.GlyphStyle{Color: valueColor(v), Radius: vg.Points(2.5), Shape: glyphs[0]}
				p.Add(l, s)
				if fi == 0 {
					lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xy, Labels: labels})
					if err == nil {
						for i := range lb.TextStyle {
							lb.TextStyle[i].Font.Size = vg.Points(7)
							lb.TextStyle[i].Color = valueColor(v)
						}
						lb.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(3)}
						p.Add(lb)
					}
				}
			}
			for _, v := range values {
				for _, im := range impls {
					pt, ok := points[pointKey{pn, v, im, n.Name}]
					if !ok {
						continue
					}
					see(pt)
					s, err := plotter.NewScatter(plotter.XYs{{X: math.Log10(pt.x), Y: math.Log10(pt.y)}})
					if err != nil {
						return nil, inputErrorf("%s: %s %s: %v", n.Name, exp, im, err)
					}
					s.GlyphStyle = draw.GlyphStyle{Color: valueColor(v), Radius: vg.Points(5), Shape: implGlyph(im)}
					p.Add(s)
				}
			}
		}
		if math.IsInf(lo[0], 1) {
			continue
		}
		for i, a := range []*plot.Axis{&p.X, &p.Y} {
			pad := 0.05 * math.Max(math.Log10(hi[i]/lo[i]), 0.5)
			a.Min, a.Max = math.Log10(lo[i])-pad, math.Log10(hi[i])+pad
			a.Tick.Marker = narrowLogTicks{}
		}
		f.panels = append(f.panels, p)
	}
	// The legend: the values' colours, the implementations' markers.
	l := newLegend()
	for _, v := range values {
		l.Add(m.Plot.Param+" "+v, lineThumb{draw.LineStyle{Color: valueColor(v), Width: vg.Points(2)}})
	}
	if len(impls) > 0 {
		l.Add("")
		l.Add("fixed budgets: the lines")
		for _, im := range impls {
			l.Add(im, glyphThumb{draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: implGlyph(im)}})
		}
	}
	if len(in) > 1 {
		l.Add("")
		for i, n := range in {
			l.Add(shortName(n.Name), lineThumb{draw.LineStyle{Color: color.Black, Width: vg.Points(2), Dashes: dashes[i%len(dashes)]}})
			l.Add("    " + machineName(n.File.Machine))
		}
	}
	f.legend = l
	f.note = fmt.Sprintf("each line: the fixed budgets at one %s, in budget order (labelled); points: the other rows", m.Plot.Param)
	return f, nil
}

// budgetOrder sorts a budget's label: its duration, unbounded last.
func budgetOrder(b string) float64 {
	if strings.EqualFold(b, "unbounded") {
		return math.Inf(1)
	}
	return durationOrder(b)
}

// durationOrder is a duration label's value in ns (0 when it is not one).
func durationOrder(s string) float64 {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0
	}
	return float64(d)
}

// narrowLogTicks are log10Ticks, every mantissa labelled when the axis
// spans less than a decade (spin's panel on one CPU: 2 to 6 µs).
type narrowLogTicks struct{}

func (narrowLogTicks) Ticks(min, max float64) []plot.Tick {
	ts := log10Ticks{}.Ticks(min, max)
	if max-min >= 1 {
		return ts
	}
	for i := range ts {
		ts[i].Label = strconv.FormatFloat(math.Round(math.Pow(10, ts[i].Value)*100)/100, 'f', -1, 64)
	}
	return ts
}
