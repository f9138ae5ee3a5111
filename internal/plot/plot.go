// Package plot draws result files, as each experiment's metric description
// says (results.PlotSpec): a figure of kind percentile (latency, timeout)
// as the latency by percentile (HdrHistogram's percentile-distribution
// plot: x is the percentile on a log scale of 1/(1-p), y the latency in
// µs), one line per configuration, the rounds' histograms merged, one
// panel per placement or setting (the key without its implementation); of
// kind param (herd's first-waiter and total time) against a configuration
// parameter, one panel per figure, one line per configuration group; of
// kind threads (lock) as total throughput against threads with the
// per-thread distribution beside it (lock.go).
//
// Every figure has one legend, right of its panels and outside every axis
// (figure.go): a colour per implementation, and when several files are
// drawn a line style per file, each file named with its machine, so that
// two files read as a comparison. Options.Impls and Options.Configs choose
// what is drawn; without them a figure with many configurations draws the
// headline ones (the A/B gate's rows of the experiment and their floors,
// internal/gate) or, for an experiment the gate does not judge, the
// floors and a few implementations spread over the range of the figure.
// The image format follows the output file's extension (.svg, .png).
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/gate"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
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
	// Impls keeps the configurations of these implementations ("all":
	// every one); Configs those whose key has every part of one of these
	// (futex/cross-core, cross-core, wake/w=1, n=64) or matches one as a
	// glob (path.Match: lot/*). Given both, a configuration must pass
	// both. Neither: the default selection (the package comment).
	Impls, Configs []string
	// Width and Height of the image; 0 picks a default (taller when the
	// legend needs it).
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

// Experiments are the experiments of f that can be drawn, in order.
func Experiments(f *results.File) []string {
	var out []string
	for _, e := range f.Experiments {
		if canPlot(f, e.Name) && !slices.Contains(out, e.Name) {
			out = append(out, e.Name)
		}
	}
	return out
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
	sel, err := selection(in, exp, drawn[0], opt)
	if err != nil {
		return nil, err
	}
	st := newStyler(in)
	var f *figure
	switch drawn[0].Plot.Kind {
	case results.PlotParam:
		f, err = paramFigure(in, exp, drawn, sel, st)
	case results.PlotThreads:
		f, err = lockFigure(in, exp, drawn[0], sel, st)
	default:
		f, err = percentileFigure(in, exp, drawn[0], sel, st)
	}
	if err != nil {
		return nil, err
	}
	f.title = exp + ": " + title(in, f.title)
	for _, n := range []string{sel.note, f.note} {
		if n != "" {
			f.title += "\n" + n
		}
	}
	f.legend = st.legend(in)
	return f.draw(opt.Width, opt.Height, format)
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

// chosen is the configurations a figure draws.
type chosen struct {
	keep func(c *results.Config) bool
	// note says what the default left out ("" when nothing).
	note string
}

// mostLines is how many implementations a panel draws by default.
const mostLines = 8

// selection decides which configurations to draw: the options' filters,
// or by default every one when a panel would draw at most mostLines
// implementations, else the headline ones.
func selection(in []Input, exp string, m results.MetricSpec, opt Options) (chosen, error) {
	var impls []string // every implementation, in order
	total := 0
	for _, n := range in {
		for _, c := range find(n.File, exp).Configs {
			total++
			if !slices.Contains(impls, c.Impl) {
				impls = append(impls, c.Impl)
			}
		}
	}
	if len(opt.Impls) > 0 || len(opt.Configs) > 0 {
		all := len(opt.Impls) == 0 || slices.Contains(opt.Impls, "all")
		keep := func(c *results.Config) bool {
			return (all || slices.Contains(opt.Impls, c.Impl)) && (len(opt.Configs) == 0 || matchConfig(opt.Configs, c.Key))
		}
		for _, n := range in {
			for _, c := range find(n.File, exp).Configs {
				if keep(c) {
					return chosen{keep: keep}, nil
				}
			}
		}
		return chosen{}, inputErrorf("no %s configuration matches --impl=%s --config=%s (implementations: %s)", exp,
			strings.Join(opt.Impls, ","), strings.Join(opt.Configs, ","), strings.Join(impls, ", "))
	}
	if len(impls) <= mostLines {
		return chosen{keep: func(*results.Config) bool { return true }}, nil
	}
	pick := headlineImpls(in, exp, m, impls)
	keep := func(c *results.Config) bool { return slices.Contains(pick, c.Impl) }
	shown := 0
	for _, n := range in {
		for _, c := range find(n.File, exp).Configs {
			if keep(c) {
				shown++
			}
		}
	}
	return chosen{keep: keep, note: fmt.Sprintf("%d of %d configurations: %s (--impl, --config: others)",
		shown, total, strings.Join(pick, ", "))}, nil
}

// matchConfig reports whether key matches one of pats: every part of the
// pattern ("/"-separated) is a part of the key (futex/cross-core,
// cross-core, wake/w=1, n=64), or the key matches it as a glob (lot/*).
func matchConfig(pats []string, key string) bool {
	segs := strings.Split(key, "/")
	for _, p := range pats {
		every := true
		for _, part := range strings.Split(p, "/") {
			every = every && slices.Contains(segs, part)
		}
		if every {
			return true
		}
		if ok, err := path.Match(p, key); err == nil && ok {
			return true
		}
	}
	return false
}

// headlineImpls is the default choice among many implementations: the
// A/B gate's rows of this experiment when its figure is a headline one
// (internal/gate.DefaultProfile), with their floors; otherwise the floors
// of the figure and implementations spread over its range (the fastest,
// the slowest and evenly between, by the median over their
// configurations), mostLines in all.
func headlineImpls(in []Input, exp string, m results.MetricSpec, impls []string) []string {
	var pick []string
	add := func(i string) {
		if i != "" && slices.Contains(impls, i) && !slices.Contains(pick, i) {
			pick = append(pick, i)
		}
	}
	if m.Headline {
		for _, part := range gate.DefaultProfile {
			if part.Experiment != exp {
				continue
			}
			for _, i := range part.Impls {
				add(i)
			}
		}
		for _, i := range slices.Clone(pick) {
			add(m.FloorImpl(i))
		}
		if len(pick) > 0 {
			return pick
		}
	}
	// Floors first (the implementations others are divided by).
	for _, i := range impls {
		for _, j := range impls {
			if m.FloorImpl(j) == i {
				add(i)
			}
		}
	}
	// Then the range of the figure.
	type iv struct {
		impl string
		v    float64
	}
	var byV []iv
	for _, i := range impls {
		var vs []float64
		for _, n := range in {
			for _, c := range find(n.File, exp).Configs {
				if v, ok := c.Summary[m.Key]; ok && c.Impl == i {
					vs = append(vs, v)
				}
			}
		}
		if len(vs) > 0 {
			sort.Float64s(vs)
			byV = append(byV, iv{i, vs[len(vs)/2]})
		}
	}
	sort.SliceStable(byV, func(a, b int) bool { return byV[a].v < byV[b].v })
	room := mostLines - len(pick)
	for k := 0; k < room && len(byV) > 0; k++ {
		idx := 0
		if room > 1 {
			idx = int(math.Round(float64(k) * float64(len(byV)-1) / float64(room-1)))
		}
		add(byV[idx].impl)
	}
	// Keep the file's order.
	slices.SortStableFunc(pick, func(a, b string) int { return slices.Index(impls, a) - slices.Index(impls, b) })
	return pick
}

// Okabe-Ito colours (distinguishable with colour-blindness), darkest
// first, then four more that stay apart from them.
var palette = []color.Color{
	color.RGBA{0x00, 0x72, 0xB2, 0xff}, // blue
	color.RGBA{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	color.RGBA{0x00, 0x9E, 0x73, 0xff}, // bluish green
	color.RGBA{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	color.RGBA{0xE6, 0x9F, 0x00, 0xff}, // orange
	color.RGBA{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	color.RGBA{0x00, 0x00, 0x00, 0xff}, // black
	color.RGBA{0x99, 0x99, 0x99, 0xff}, // grey
	color.RGBA{0x88, 0x22, 0x55, 0xff}, // wine
	color.RGBA{0x44, 0x77, 0x33, 0xff}, // olive green
	color.RGBA{0x33, 0x22, 0x88, 0xff}, // indigo
	color.RGBA{0x99, 0x66, 0x33, 0xff}, // brown
}

var dashes = [][]vg.Length{nil, {vg.Points(7), vg.Points(3)}, {vg.Points(2), vg.Points(2)}, {vg.Points(8), vg.Points(2), vg.Points(2), vg.Points(2)}}

var glyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}

// styler hands out a colour (and marker) per series label (an
// implementation, or a configuration group) and a dash pattern per file,
// and builds the one legend of a figure: the labels, then the files.
type styler struct {
	labels []string
	files  []string
	used   map[string]bool
	marks  bool // the series have markers
}

func newStyler(in []Input) *styler {
	s := &styler{used: map[string]bool{}}
	for _, n := range in {
		s.files = append(s.files, n.Name)
	}
	return s
}

func (s *styler) index(label string) int {
	i := slices.Index(s.labels, label)
	if i < 0 {
		i = len(s.labels)
		s.labels = append(s.labels, label)
	}
	return i
}

// line is the style of label's series in file.
func (s *styler) line(label, file string) draw.LineStyle {
	i := s.index(label)
	f := max(slices.Index(s.files, file), 0)
	s.used[label] = true
	// Past the palette, colours repeat with the next dash pattern (one
	// file) or a dotted line (several files).
	d := f
	if len(s.files) == 1 {
		d = i / len(palette)
	}
	return draw.LineStyle{Color: palette[i%len(palette)], Width: vg.Points(2), Dashes: dashes[d%len(dashes)]}
}

// glyph is the marker of label's series.
func (s *styler) glyph(label string) draw.GlyphStyle {
	i := s.index(label)
	s.marks = true
	return draw.GlyphStyle{Color: palette[i%len(palette)], Radius: vg.Points(4), Shape: glyphs[i%len(glyphs)]}
}

// legend lists each label in its colour (and marker), then, when several
// files are drawn, each file's line style with its name and machine.
func (s *styler) legend(in []Input) *plot.Legend {
	l := newLegend()
	for _, lb := range s.labels {
		if !s.used[lb] {
			continue
		}
		ls := s.line(lb, s.files[0])
		ls.Dashes = nil
		if len(s.files) == 1 {
			ls = s.line(lb, s.files[0])
		}
		th := []plot.Thumbnailer{lineThumb{ls}}
		if s.marks {
			th = append(th, glyphThumb{s.glyph(lb)})
		}
		l.Add(lb, th...)
	}
	if len(s.files) > 1 {
		l.Add("")
		for i, n := range in {
			ls := draw.LineStyle{Color: color.Black, Width: vg.Points(2), Dashes: dashes[i%len(dashes)]}
			l.Add(shortName(n.Name), lineThumb{ls})
			l.Add("    " + machineName(n.File.Machine))
		}
	}
	return l
}

type lineThumb struct{ draw.LineStyle }

func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.LineStyle, c.Min.X, y, c.Max.X, y)
}

type glyphThumb struct{ draw.GlyphStyle }

func (t glyphThumb) Thumbnail(c *draw.Canvas) { c.DrawGlyph(t.GlyphStyle, c.Center()) }

// machineName is a machine in a few words: its CPU (without the
// trademarks and the words every CPU name has) and count, or its slug.
func machineName(m results.Machine) string {
	if m.CPUModel == "" {
		return m.Slug
	}
	cpu := m.CPUModel
	for _, w := range []string{"(R)", "(r)", "(TM)", "(tm)", " CPU", " Processor"} {
		cpu = strings.ReplaceAll(cpu, w, "")
	}
	return fmt.Sprintf("%s, %d CPUs", strings.Join(strings.Fields(cpu), " "), m.LogicalCPUs)
}

func title(in []Input, what string) string {
	var ms []string
	for _, n := range in {
		d := machineName(n.File.Machine)
		if !slices.Contains(ms, d) {
			ms = append(ms, d)
		}
	}
	return what + "\n" + strings.Join(ms, " vs ")
}

func basePlot(t string) *plot.Plot {
	p := plot.New()
	p.Title.Text = t
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(11)
		a.Tick.Label.Font.Size = vg.Points(10)
	}
	p.Add(plotter.NewGrid())
	return p
}

func shortName(name string) string {
	b := filepath.Base(name)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// variant is a configuration's key without its implementation: its
// placement and settings ("cross-core", "deadline=1ms/slack=1ns").
func variant(c *results.Config) string {
	if c.Impl != "" && strings.HasPrefix(c.Key, c.Impl) {
		return strings.TrimPrefix(c.Key[len(c.Impl):], "/")
	}
	return ""
}

// mostPanels is how many panels a percentile figure draws.
const mostPanels = 12

// percentileFigure draws the configurations' latency by percentile: one
// panel per variant (placement, settings), one line per implementation
// (a colour each, the same in every panel) and file (a dash pattern each).
func percentileFigure(in []Input, exp string, m results.MetricSpec, sel chosen, st *styler) (*figure, error) {
	type series struct {
		pts   plotter.XYs
		label string
		file  string
	}
	var variants []string
	byVariant := map[string][]series{}
	lo, hi := math.Inf(1), 0.0
	for _, n := range in {
		e := find(n.File, exp)
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
func paramFigure(in []Input, exp string, specs []results.MetricSpec, sel chosen, st *styler) (*figure, error) {
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
		for _, g := range ParamGroups(find(n.File, exp), figs[0].Plot.Param) {
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
		for _, g := range ParamGroups(find(n.File, exp), figs[0].Plot.Param) {
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
			for _, g := range ParamGroups(find(n.File, exp), m.Plot.Param) {
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
			l, s, err := plotter.NewLinePoints(pts)
			if err != nil {
				return nil, inputErrorf("%s: %s %s: %v", k.file, exp, k.label, err)
			}
			l.LineStyle = st.line(k.label, k.file)
			s.GlyphStyle = st.glyph(k.label)
			p.Add(l, s)
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
