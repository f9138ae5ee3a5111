package plot

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// paramFigure draws each figure against its PlotSpec.Param (herd: first
// waiter and total time against the waiter count N), one line per
// configuration group (ParamGroups) and file. Each group has its colour
// and marker, and the groups' points are spread a little along x (a few
// per cent, on the log axis) so that equal values do not hide one
// another. One panel per figure; when that would draw more than mostLines
// groups of several settings (wake's benches, herd's notify modes), one
// panel per figure and setting, a colour per implementation, and only the
// first figure when that makes more than mostPanelsParam panels (the
// title says so; --config picks a setting, which draws every figure).
func paramFigure(in []results.Named, exp string, specs []results.MetricSpec, sel chosen, st *styler) (*figure, error) {
	var figs []results.MetricSpec
	for _, m := range specs {
		if m.Plot.Kind == results.PlotParam {
			figs = append(figs, m)
		}
	}
	// The settings (the group key without its implementation) and the
	// groups drawn.
	var settings, groups []string
	for _, n := range in {
		for _, g := range ParamGroups(n.File.Experiment(exp), figs[0].Plot.Param) {
			kept := false
			for _, c := range g.ByValue {
				kept = kept || sel.keep(c)
			}
			if !kept {
				continue
			}
			if v := groupSetting(g); !slices.Contains(settings, v) {
				settings = append(settings, v)
			}
			if !slices.Contains(groups, g.Key) {
				groups = append(groups, g.Key)
			}
		}
	}
	type panel struct {
		m       results.MetricSpec
		setting string // "": every setting in one panel
	}
	var panels []panel
	f := &figure{}
	facet := len(settings) > 1 && len(groups) > mostLines
	if !facet {
		for _, m := range figs {
			panels = append(panels, panel{m, ""})
		}
	} else {
		if len(figs)*len(settings) > mostPanelsParam {
			var rest []string
			for _, m := range figs[1:] {
				rest = append(rest, m.Plot.Title)
			}
			f.note = fmt.Sprintf("one panel per setting; --config=SETTING (e.g. --config=%s) also draws %s", settings[0], strings.Join(rest, ", "))
			figs = figs[:1]
		}
		for _, m := range figs {
			for _, v := range settings {
				panels = append(panels, panel{m, v})
			}
		}
		f.cols = min(len(settings), 4)
	}
	// One panel for every group: labels without what a file's drawn
	// groups share (so that lot is lot in a file that keys it
	// lot/unpinned/notify=notify-all and in one that keys it lot).
	type fileGroup struct{ file, group string }
	labelOf := map[fileGroup]string{}
	for _, n := range in {
		var keys []string
		for _, g := range ParamGroups(n.File.Experiment(exp), figs[0].Plot.Param) {
			if slices.Contains(groups, g.Key) {
				keys = append(keys, g.Key)
			}
		}
		short, common := textfmt.ShortKeys(keys)
		for i, k := range keys {
			labelOf[fileGroup{n.Name, k}] = short[i]
		}
		if !facet && len(common) > 0 && len(settings) == 1 && len(in) == 1 && f.note == "" {
			f.note = "every line: " + strings.Join(common, "/")
		}
	}
	type key struct{ file, label string }
	for _, pn := range panels {
		m := pn.m
		scale := 1.0
		if m.Unit == results.UnitMicros {
			scale = 1000
		}
		t := m.Plot.Title
		if pn.setting != "" {
			t = pn.setting
			if len(figs) > 1 {
				t = m.Plot.Title + ": " + pn.setting
			}
		}
		p := basePlot(t)
		p.X.Label.Text = xLabel(m.Plot.Param)
		p.Y.Label.Text = m.Plot.Axis
		p.X.Scale = plot.LogScale{}
		var order []key
		series := map[key]plotter.XYs{}
		var allN []float64
		lo, hi := math.Inf(1), 0.0
		for _, n := range in {
			for _, g := range ParamGroups(n.File.Experiment(exp), m.Plot.Param) {
				label := labelOf[fileGroup{n.Name, g.Key}]
				if facet {
					if groupSetting(g) != pn.setting {
						continue
					}
					label = g.Impl
				}
				k := key{n.Name, label}
				for nv, c := range g.ByValue {
					v, ok := c.Summary[m.Key]
					if !ok || nv < 1 || !sel.keep(c) {
						continue
					}
					if _, ok := series[k]; !ok {
						order = append(order, k)
					}
					series[k] = append(series[k], plotter.XY{X: float64(nv), Y: v / scale})
					allN = append(allN, float64(nv))
					lo, hi = math.Min(lo, v/scale), math.Max(hi, v/scale)
				}
			}
		}
		if len(order) == 0 {
			if facet {
				continue
			}
			return nil, inputErrorf("%s: the %s experiment has no configurations with %s (params %s) and %s", in[0].Name, exp, xLabel(m.Plot.Param), m.Plot.Param, m.Key)
		}
		logY := hi/lo > 20
		for i, k := range order {
			pts := series[k]
			sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
			// Spread the series along x: at most ±7% of the value
			// (a few per cent of a log axis), so the N labels still
			// sit under every point.
			spread := 1.0
			if len(order) > 1 {
				spread = math.Pow(1.07, 2*float64(i)/float64(len(order)-1)-1)
			}
			for j := range pts {
				pts[j].X *= spread
			}
			if logY {
				toLog10(pts)
			}
			if err := st.add(p, pts, k.label, k.file); err != nil {
				return nil, inputErrorf("%s: %s %s: %v", k.file, exp, k.label, err)
			}
		}
		p.X.Tick.Marker = nTicks(allN)
		p.X.Min, p.X.Max = slices.Min(allN)/1.15, slices.Max(allN)*1.15
		if logY {
			p.Y.Tick.Marker = log10Ticks{}
			p.Y.Min = math.Log10(lo) - 0.04*math.Log10(hi/lo)
			p.Y.Max = math.Log10(hi) + 0.04*math.Log10(hi/lo)
		} else {
			p.Y.Min = 0
			p.Y.Max = hi * 1.05
			p.Y.Tick.Marker = linearTicks{}
		}
		f.panels = append(f.panels, p)
	}
	switch {
	case len(f.panels) == 0:
		return nil, inputErrorf("%s: the %s experiment has nothing to draw against %s", in[0].Name, exp, xLabel(figs[0].Plot.Param))
	case len(figs) == 1:
		f.title = figs[0].Plot.Title
	default:
		f.title = "against " + xLabel(figs[0].Plot.Param)
	}
	return f, nil
}

// mostPanelsParam is how many panels a param figure draws by default.
const mostPanelsParam = 8

// groupSetting is a configuration group's key without its implementation:
// its bench and settings ("wake/w=1", "unpinned/notify=notify-all").
func groupSetting(g ParamGroup) string {
	if g.Impl != "" && strings.HasPrefix(g.Key, g.Impl) {
		return strings.TrimPrefix(g.Key[len(g.Impl):], "/")
	}
	return g.Key
}

// xLabel names a parameter axis ("n" is herd's waiter count).
func xLabel(param string) string {
	switch param {
	case "n":
		return "waiters N"
	case "load":
		return "offered load (% of the nominal capacity)"
	}
	return param
}
