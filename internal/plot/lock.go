package plot

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/results"
)

// lockGroup splits a lock configuration key impl/.../t=N into the
// configuration without the thread count and N.
func lockGroup(c *results.Config) (rest string, threads int, ok bool) {
	i := strings.LastIndex(c.Key, "/t=")
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(c.Key[i+3:])
	if err != nil || n < 1 {
		return "", 0, false
	}
	return strings.TrimPrefix(c.Key[:i], c.Impl), n, true
}

// lockPlots draws lock's total throughput against threads (one line per
// implementation, and per work/locks setting when there are several) and
// the per-thread distribution (a box per implementation of the per-thread
// acquisitions/s of every repeat) at the largest thread count of the first
// setting.
func lockFigure(in []results.Named, exp string, m results.MetricSpec, sel chosen, st *styler) (*figure, error) {
	type key struct{ file, impl, rest string }
	var order []key
	series := map[key]plotter.XYs{}
	rests := map[string]bool{}
	var allN []float64
	hi := 0.0
	for _, n := range in {
		for _, c := range find(n.File, exp).Configs {
			rest, t, ok := lockGroup(c)
			v, has := c.Summary[m.Key]
			if !ok || !has || !sel.keep(c) {
				continue
			}
			k := key{n.Name, c.Impl, rest}
			if _, seen := series[k]; !seen {
				order = append(order, k)
			}
			rests[rest] = true
			series[k] = append(series[k], plotter.XY{X: float64(t), Y: v})
			allN = append(allN, float64(t))
			hi = math.Max(hi, v)
		}
	}
	if len(order) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no configuration with a thread count (key .../t=N) and %s", in[0].Name, exp, m.Key)
	}
	p := basePlot(m.Plot.Title)
	p.X.Label.Text = "threads"
	p.Y.Label.Text = m.Plot.Axis
	p.X.Scale = plot.LogScale{}
	for _, k := range order {
		pts := series[k]
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		l, s, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, inputErrorf("%s: %s %s: %v", k.file, exp, k.impl, err)
		}
		label := k.impl
		if len(rests) > 1 {
			label += strings.ReplaceAll(k.rest, "/", " ")
		}
		// A colour and marker per implementation (and setting), a dash
		// pattern per file.
		l.LineStyle = st.line(label, k.file)
		s.GlyphStyle = st.glyph(label)
		p.Add(l, s)
	}
	p.X.Tick.Marker = nTicks(allN)
	p.Y.Min, p.Y.Max = 0, hi*1.05
	p.Y.Tick.Marker = linearTicks{}

	dist, err := lockDistribution(in, exp, order[0].rest, sel, st)
	if err != nil {
		return nil, err
	}
	return &figure{title: m.Plot.Title, panels: []*plot.Plot{p, dist}}, nil
}

// lockDistribution is one box per implementation (and file): the
// per-thread acquisitions/s (kHz) of every repeat of the configurations
// with setting rest at their largest thread count.
func lockDistribution(in []results.Named, exp, rest string, sel chosen, st *styler) (*plot.Plot, error) {
	maxT := 0
	for _, n := range in {
		for _, c := range find(n.File, exp).Configs {
			if r, t, ok := lockGroup(c); ok && r == rest {
				maxT = max(maxT, t)
			}
		}
	}
	p := basePlot("per-thread acquisitions/s at " + strconv.Itoa(maxT) + " threads" + strings.ReplaceAll(rest, "/", " "))
	p.Y.Label.Text = "per-thread kHz (every thread of every repeat)"
	var ticks plot.ConstantTicks
	hi := 0.0
	for _, n := range in {
		for _, c := range find(n.File, exp).Configs {
			if r, t, ok := lockGroup(c); !ok || r != rest || t != maxT || !sel.keep(c) {
				continue
			}
			var v plotter.Values
			for _, rd := range c.Rounds {
				for m, x := range rd.Metrics {
					if strings.HasPrefix(m, "khz_thread_") {
						v = append(v, x)
						hi = math.Max(hi, x)
					}
				}
			}
			if len(v) == 0 {
				continue
			}
			x := float64(len(ticks))
			b, err := plotter.NewBoxPlot(vg.Points(18), x, v)
			if err != nil {
				return nil, inputErrorf("%s: %s %s: %v", n.Name, exp, c.Key, err)
			}
			b.BoxStyle = st.line(c.Impl, n.Name)
			b.BoxStyle.Width = vg.Points(1.5)
			label := c.Impl
			if len(in) > 1 {
				label = shortName(n.Name) + ": " + c.Impl
			}
			ticks = append(ticks, plot.Tick{Value: x, Label: label})
			p.Add(b)
		}
	}
	if len(ticks) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no per-thread counts (rounds' khz_thread_* metrics)", in[0].Name, exp)
	}
	p.X.Tick.Marker = ticks
	rotateIfCrowded(p, ticks)
	p.X.Min, p.X.Max = -0.7, float64(len(ticks))-0.3
	p.Y.Min, p.Y.Max = 0, hi*1.05
	p.Y.Tick.Marker = linearTicks{}
	return p, nil
}

// crowdedWidth is the narrowest a distribution panel's plotting area gets
// at the default size (two panels side by side in 16 inches, beside the
// legend): its tick labels are laid out for that width.
const crowdedWidth = 300 // points

// rotateIfCrowded turns p's x tick labels upright (reading bottom to top)
// when, side by side, they would need more than crowdedWidth: a box per
// implementation and file (lock with two files: 16 boxes) otherwise prints
// its labels over each other.
func rotateIfCrowded(p *plot.Plot, ticks plot.ConstantTicks) {
	widest := vg.Length(0)
	for _, t := range ticks {
		widest = max(widest, p.X.Tick.Label.Rectangle(t.Label).Size().X)
	}
	if widest*vg.Length(len(ticks))*1.15 <= vg.Points(crowdedWidth) {
		return
	}
	p.X.Tick.Label.Rotation = math.Pi / 2
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
}
