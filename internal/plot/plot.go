// Package plot draws result files, as each experiment's metric description
// says (results.PlotSpec): a figure of kind percentile (latency, timeout)
// as the latency by percentile (HdrHistogram's percentile-distribution
// plot: x is the percentile on a log scale of 1/(1-p), y the latency in
// µs) with one line per configuration, the rounds' histograms merged; of
// kind param (herd's first-waiter and total time) against a configuration
// parameter, one panel per figure, one line per implementation; of kind
// threads (lock) as total throughput against threads with the per-thread
// distribution beside it (lock.go).
// The image format follows the output file's extension (.svg, .png).
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/results"
)

// Input is one result file to plot and the name it was read from.
type Input struct {
	Name string
	File *results.File
}

// Options choose what to draw.
type Options struct {
	// Experiment to plot; "" picks the file's only plottable experiment.
	Experiment string
	// Width and Height of the image; 0 picks a default.
	Width, Height vg.Length
}

// Plottable lists the experiments of files without a metric description
// that this package can draw (a described experiment is plottable when a
// figure of its description has a PlotSpec).
var Plottable = func() []string {
	var out []string
	for _, name := range results.LegacyNames() {
		if specs, _ := results.Legacy(name); len(plotSpecs(specs)) > 0 {
			out = append(out, name)
		}
	}
	return out
}()

// plotSpecs returns the figures of a description that have a plot.
func plotSpecs(specs []results.MetricSpec) []results.MetricSpec {
	var out []results.MetricSpec
	for _, m := range specs {
		if m.Plot != nil {
			out = append(out, m)
		}
	}
	return out
}

// canPlot reports whether experiment name of f (or, when f has none, of
// files without a description) has a plot.
func canPlot(f *results.File, name string) bool {
	if e := find(f, name); e != nil {
		specs, _ := e.Specs()
		return len(plotSpecs(specs)) > 0
	}
	specs, _ := results.Legacy(name)
	return len(plotSpecs(specs)) > 0
}

// Formats lists the output extensions.
var Formats = []string{".svg", ".png"}

// Format returns the image format of an output path, or an error naming
// the valid extensions.
func Format(path string) (string, error) {
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range Formats {
		if ext == f {
			return ext[1:], nil
		}
	}
	return "", fmt.Errorf("%s: unknown image format %q; use one of %s", path, ext, strings.Join(Formats, ", "))
}

// InputError is bad input: an experiment that is not there, nothing to
// plot, a corrupt histogram. Commands turn it into exit status 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, a ...any) error { return &InputError{fmt.Errorf(format, a...)} }

// chooseExperiment returns the experiment to draw from all inputs.
func chooseExperiment(in []Input, want string) (string, error) {
	if want != "" {
		if !canPlot(in[0].File, want) {
			return "", inputErrorf("cannot plot experiment %q: plots exist for %s", want, strings.Join(Plottable, ", "))
		}
		for _, n := range in {
			if find(n.File, want) == nil {
				return "", inputErrorf("%s: no %s experiment (it holds %s)", n.Name, want, names(n.File))
			}
		}
		return want, nil
	}
	var found []string
	for _, e := range in[0].File.Experiments {
		if canPlot(in[0].File, e.Name) && !slices.Contains(found, e.Name) {
			found = append(found, e.Name)
		}
	}
	switch len(found) {
	case 0:
		return "", inputErrorf("%s: nothing to plot (it holds %s; plots exist for %s)", in[0].Name, names(in[0].File), strings.Join(Plottable, ", "))
	case 1:
		return chooseExperiment(in, found[0])
	}
	return "", inputErrorf("%s holds several experiments (%s): choose one with --experiment", in[0].Name, strings.Join(found, ", "))
}

func find(f *results.File, name string) *results.Experiment {
	for _, e := range f.Experiments {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func names(f *results.File) string {
	var s []string
	for _, e := range f.Experiments {
		s = append(s, e.Name)
	}
	if len(s) == 0 {
		return "no experiments"
	}
	return strings.Join(s, ", ")
}

// Render draws the inputs into an image of the given format ("svg", "png").
func Render(in []Input, format string, opt Options) ([]byte, error) {
	if len(in) == 0 {
		return nil, inputErrorf("no result files to plot")
	}
	exp, err := chooseExperiment(in, opt.Experiment)
	if err != nil {
		return nil, err
	}
	specs, _ := find(in[0].File, exp).Specs()
	drawn := plotSpecs(specs)
	var plots []*plot.Plot
	switch drawn[0].Plot.Kind {
	case results.PlotParam:
		plots, err = paramPlots(in, exp, drawn)
	case results.PlotThreads:
		plots, err = lockPlots(in, exp, drawn[0])
	default:
		var p *plot.Plot
		p, err = percentilePlot(in, exp, drawn[0])
		plots = []*plot.Plot{p}
	}
	if err != nil {
		return nil, err
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		w = 10 * vg.Inch
		if len(plots) > 1 {
			w = 16 * vg.Inch
		}
	}
	if h == 0 {
		h = 6 * vg.Inch
	}
	return draw1(plots, w, h, format)
}

func draw1(plots []*plot.Plot, w, h vg.Length, format string) ([]byte, error) {
	var c draw.Canvas
	var buf bytes.Buffer
	var write func() error
	switch format {
	case "svg":
		sc := vgsvg.New(w, h)
		c = draw.New(sc)
		write = func() error { _, err := sc.WriteTo(&buf); return err }
	case "png":
		ic := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(110))
		c = draw.New(ic)
		write = func() error { _, err := vgimg.PngCanvas{Canvas: ic}.WriteTo(&buf); return err }
	default:
		return nil, fmt.Errorf("unknown image format %q", format)
	}
	// White background: PNGs are transparent otherwise, unreadable in a
	// dark-mode viewer.
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadX: vg.Millimeter * 8, PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	for i, p := range plots {
		tc := tiles.At(c, i, 0)
		// The legend goes right of the data, never over a line.
		leg := p.Legend
		p.Legend = plot.NewLegend()
		lw := leg.Rectangle(tc).Size().X + vg.Points(10)
		p.Draw(draw.Crop(tc, 0, -lw, 0, 0))
		top := p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		leg.Top, leg.Left, leg.XOffs, leg.YOffs = true, true, 0, 0
		leg.Draw(draw.Crop(tc, tc.Size().X-lw+vg.Points(10), 0, 0, -top))
	}
	if err := write(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteFile renders and writes path atomically (temporary file, rename), so
// a failed or interrupted plot leaves no half-written image.
func WriteFile(path string, in []Input, opt Options) error {
	format, err := Format(path)
	if err != nil {
		return &InputError{err}
	}
	data, err := Render(in, format, opt)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, data)
}

// Okabe-Ito colours (distinguishable with colour-blindness), darkest first.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey
}

var dashes = [][]vg.Length{nil, {vg.Points(6), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

// styler hands out a colour per group (impl, or file when there are
// several) and a dash pattern per variant (placement).
type styler struct {
	groups, variants map[string]int
}

func newStyler() *styler { return &styler{map[string]int{}, map[string]int{}} }

func (s *styler) style(group, variant string) draw.LineStyle {
	g, ok := s.groups[group]
	if !ok {
		g = len(s.groups)
		s.groups[group] = g
	}
	v, ok := s.variants[variant]
	if !ok {
		v = len(s.variants)
		s.variants[variant] = v
	}
	// Past the palette, colours repeat with the next dash pattern.
	return draw.LineStyle{Color: palette[g%len(palette)], Width: vg.Points(2), Dashes: dashes[(v+g/len(palette))%len(dashes)]}
}

func title(in []Input, what string) string {
	var ms []string
	seen := map[string]bool{}
	for _, n := range in {
		m := n.File.Machine
		d := m.Slug
		if m.CPUModel != "" {
			d = fmt.Sprintf("%s, %d CPUs", m.CPUModel, m.LogicalCPUs)
		}
		if !seen[d] {
			seen[d] = true
			ms = append(ms, d)
		}
	}
	return what + "\n" + strings.Join(ms, "\nvs ")
}

func basePlot(t string) *plot.Plot {
	p := plot.New()
	p.Title.Text = t
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(8)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Tick.Label.Font.Size = vg.Points(10)
	}
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.ThumbnailWidth = vg.Points(36)
	p.Legend.Padding = vg.Points(2)
	p.Add(plotter.NewGrid())
	return p
}

// percentileTicks label the 1/(1-p) axis by percentile.
type percentileTicks struct{}

func (percentileTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	for x, k := 1.0, 0; x <= max*1.0001; x, k = x*10, k+1 {
		label := "0%" // k nines: 90%, 99%, 99.9%, ...
		switch {
		case k == 1:
			label = "90%"
		case k >= 2:
			label = "99%"
			if k > 2 {
				label = "99." + strings.Repeat("9", k-2) + "%"
			}
		}
		ts = append(ts, plot.Tick{Value: x, Label: label})
		for m := 2.0; m < 10 && x*m <= max; m++ {
			ts = append(ts, plot.Tick{Value: x * m})
		}
	}
	return ts
}

// A log y axis is drawn as log10 of the values on a linear axis, labelled
// with the values: gonum centres the axis label at the arithmetic mean of
// the range, which on a log scale pushes it, and the whole plot, down.
func toLog10(pts plotter.XYs) {
	for i := range pts {
		pts[i].Y = math.Log10(pts[i].Y)
	}
}

// log10Ticks label a log10-transformed axis with round values in µs: 1, 2
// and 5 times powers of ten, or only the powers when the range is wide.
type log10Ticks struct{}

func (log10Ticks) Ticks(min, max float64) []plot.Tick {
	lo, hi := math.Pow(10, min), math.Pow(10, max)
	labelled := map[float64]bool{1: true, 2: true, 5: true}
	if max-min > 4 {
		labelled = map[float64]bool{1: true}
	}
	var ts []plot.Tick
	for d := math.Pow(10, math.Floor(min)); d <= hi; d *= 10 {
		for m := 1.0; m < 10; m++ {
			v := d * m
			if v < lo*0.999 || v > hi*1.001 {
				continue
			}
			t := plot.Tick{Value: math.Log10(v)}
			if labelled[m] {
				t.Label = strconv.FormatFloat(v, 'f', -1, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

// linearTicks labels 4 to 10 round values (1, 2 or 5 times a power of ten
// apart) with minor ticks between.
type linearTicks struct{}

func (linearTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return plot.DefaultTicks{}.Ticks(min, max)
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 5, 10} {
		if mag*m >= raw {
			step = mag * m
			break
		}
	}
	var ts []plot.Tick
	for v := math.Ceil(min/step) * step; v <= max+step*1e-9; v += step {
		ts = append(ts, plot.Tick{Value: v, Label: strconv.FormatFloat(math.Round(v/step)*step, 'f', -1, 64)})
		if m := v + step/2; m < max {
			ts = append(ts, plot.Tick{Value: m})
		}
	}
	return ts
}

func percentilePlot(in []Input, exp string, m results.MetricSpec) (*plot.Plot, error) {
	p := basePlot(exp + ": " + title(in, m.Plot.Title))
	p.X.Label.Text = "percentile"
	p.Y.Label.Text = m.Plot.Axis
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = percentileTicks{}
	st := newStyler()
	lo, hi := math.Inf(1), 0.0
	type series struct {
		pts   plotter.XYs
		style draw.LineStyle
		label string
	}
	var all []series
	for _, n := range in {
		e := find(n.File, exp)
		for _, c := range e.Configs {
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
			group, variant, label := c.Impl, c.Placement, c.Key
			if group == "" {
				group = c.Key
			}
			if len(in) > 1 {
				// Colour per configuration, dashes per file.
				group, variant, label = c.Key, n.Name, shortName(n.Name)+": "+c.Key
			}
			all = append(all, series{pts, st.style(group, variant), label})
		}
	}
	if len(all) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no histograms to plot", in[0].Name, exp)
	}
	logY := hi/lo > 20
	if logY {
		p.Y.Tick.Marker = log10Ticks{}
	} else {
		p.Y.Min = 0
		p.Y.Tick.Marker = linearTicks{}
	}
	for _, sr := range all {
		if logY {
			toLog10(sr.pts)
		}
		l, err := plotter.NewLine(sr.pts)
		if err != nil {
			return nil, inputErrorf("%s: %s %s: %v", in[0].Name, exp, sr.label, err)
		}
		l.LineStyle = sr.style
		p.Add(l)
		p.Legend.Add(sr.label, l)
	}
	return p, nil
}

func shortName(name string) string {
	b := filepath.Base(name)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// paramPlots draws each figure against its PlotSpec.Param (herd: first
// waiter and total time against the waiter count N), one panel per figure,
// one line per configuration group (ParamGroups).
func paramPlots(in []Input, exp string, specs []results.MetricSpec) ([]*plot.Plot, error) {
	type key struct{ file, impl string }
	var plots []*plot.Plot
	for _, m := range specs {
		if m.Plot.Kind != results.PlotParam {
			continue
		}
		scale := 1.0
		if m.Unit == results.UnitMicros {
			scale = 1000
		}
		p := basePlot(exp + ": " + title(in, m.Plot.Title))
		p.X.Label.Text = xLabel(m.Plot.Param)
		p.Y.Label.Text = m.Plot.Axis
		p.X.Scale = plot.LogScale{}
		st := newStyler()
		var order []key
		series := map[key]plotter.XYs{}
		var allN []float64
		lo, hi := math.Inf(1), 0.0
		for _, n := range in {
			for _, g := range ParamGroups(find(n.File, exp), m.Plot.Param) {
				k := key{n.Name, g.Label}
				for nv, c := range g.ByValue {
					v, ok := c.Summary[m.Key]
					if !ok || nv < 1 {
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
			return nil, inputErrorf("%s: the %s experiment has no configurations with %s (params %s) and %s", in[0].Name, exp, xLabel(m.Plot.Param), m.Plot.Param, m.Key)
		}
		logY := hi/lo > 20
		for _, k := range order {
			pts := series[k]
			sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
			if logY {
				toLog10(pts)
			}
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, inputErrorf("%s: %s %s: %v", k.file, exp, k.impl, err)
			}
			group, label := k.impl, k.impl
			if len(in) > 1 {
				group, label = k.file+" "+k.impl, shortName(k.file)+": "+k.impl
			}
			if len(in) > 1 {
				// Colour per implementation, dashes per file.
				l.LineStyle = st.style(k.impl, k.file)
			} else {
				l.LineStyle = st.style(group, "")
			}
			s.Color = l.LineStyle.Color
			s.Shape = draw.CircleGlyph{}
			s.Radius = vg.Points(3.5)
			p.Add(l, s)
			p.Legend.Add(label, l, s)
		}
		p.X.Tick.Marker = nTicks(allN)
		if logY {
			p.Y.Tick.Marker = log10Ticks{}
			p.Y.Min = math.Log10(lo) - 0.04*math.Log10(hi/lo)
			p.Y.Max = math.Log10(hi) + 0.04*math.Log10(hi/lo)
		} else {
			p.Y.Min = 0
			p.Y.Max = hi * 1.05
			p.Y.Tick.Marker = linearTicks{}
		}
		plots = append(plots, p)
	}
	return plots, nil
}

// xLabel names a parameter axis ("n" is herd's waiter count).
func xLabel(param string) string {
	if param == "n" {
		return "waiters N"
	}
	return param
}

// nTicks labels exactly the waiter counts measured.
func nTicks(ns []float64) plot.ConstantTicks {
	sort.Float64s(ns)
	var ts plot.ConstantTicks
	for i, n := range ns {
		if i == 0 || n != ns[i-1] {
			ts = append(ts, plot.Tick{Value: n, Label: strconv.FormatFloat(n, 'f', -1, 64)})
		}
	}
	return ts
}
