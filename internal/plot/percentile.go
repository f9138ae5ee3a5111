package plot

import (
	"errors"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/parkbench/parkbench/internal/results"
)

// mostPanels is how many panels a percentile figure draws.
const mostPanels = 12

// percentileFigure draws the configurations' latency by percentile: one
// panel per variant (placement, settings), one line per implementation
// (a colour each, the same in every panel) and file (a dash pattern each).
func percentileFigure(in []results.Named, exp string, m results.MetricSpec, sel chosen, st *styler) (*figure, error) {
	type series struct {
		pts   plotter.XYs
		label string
		file  string
	}
	var variants []string
	byVariant := map[string][]series{}
	lo, hi := math.Inf(1), 0.0
	for _, n := range in {
		e := n.File.Experiment(exp)
		for _, c := range e.Configs {
			if !sel.keep(c) {
				continue
			}
			h, err := c.MergedHist()
			if errors.Is(err, results.ErrNoHistogram) {
				continue
			}
			if err != nil {
				return nil, inputErrorf("%s: %s: %v", n.Name, exp, err)
			}
			total := float64(h.TotalCount())
			if total < 1 {
				continue
			}
			var pts plotter.XYs
			// 1/(1-p) from 1 to the sample count, 40 steps a decade.
			for k := 0; ; k++ {
				x := math.Pow(10, float64(k)/40)
				if x > total {
					break
				}
				q := 100 * (1 - 1/x)
				y := float64(h.ValueAtQuantile(q)) / 1000
				if y <= 0 {
					y = 0.001
				}
				pts = append(pts, plotter.XY{X: x, Y: y})
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
			label := c.Impl
			if label == "" {
				label = c.Key
			}
			v := variant(c)
			if _, ok := byVariant[v]; !ok {
				variants = append(variants, v)
			}
			byVariant[v] = append(byVariant[v], series{pts, label, n.Name})
		}
	}
	if len(variants) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no histograms to plot", in[0].Name, exp)
	}
	if len(variants) > mostPanels {
		return nil, inputErrorf("%s: %d placements or settings to draw, one panel each; choose at most %d with --config (e.g. --config=%s)",
			exp, len(variants), mostPanels, variants[0])
	}
	logY := hi/lo > 20
	f := &figure{title: m.Plot.Title, cols: min(len(variants), 4)}
	if len(variants) == 1 {
		f.cols = 1
	}
	for _, v := range variants {
		p := basePlot(v)
		p.X.Label.Text = "percentile"
		p.Y.Label.Text = m.Plot.Axis
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = percentileTicks{}
		if logY {
			p.Y.Tick.Marker = log10Ticks{}
			p.Y.Min, p.Y.Max = math.Log10(lo), math.Log10(hi)
		} else {
			p.Y.Min, p.Y.Max = 0, hi*1.05
			p.Y.Tick.Marker = linearTicks{}
		}
		for _, sr := range byVariant[v] {
			if logY {
				toLog10(sr.pts)
			}
			l, err := plotter.NewLine(sr.pts)
			if err != nil {
				return nil, inputErrorf("%s: %s %s: %v", in[0].Name, exp, sr.label, err)
			}
			l.LineStyle = st.line(sr.label, sr.file)
			p.Add(l)
		}
		f.panels = append(f.panels, p)
	}
	return f, nil
}
