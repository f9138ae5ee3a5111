package plot

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/results"
)

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

// colorOf is label i's colour: the palette's, then, past it, colours
// chosen to stay apart from every one before them, so that no two labels
// of a figure share a colour (plot --config=cross-core draws 25 lines).
func colorOf(i int) color.Color {
	if i < len(palette) {
		return palette[i]
	}
	extraMu.Lock()
	defer extraMu.Unlock()
	for len(extraColors) <= i-len(palette) {
		extraColors = append(extraColors, farthestColor(append(slices.Clone(palette), extraColors...)))
	}
	return extraColors[i-len(palette)]
}

// extraColors are colorOf's colours past the palette, in order, grown
// under extraMu (figures may be drawn concurrently); they depend only on
// the palette, so every figure gives label i the same one.
var (
	extraMu     sync.Mutex
	extraColors []color.Color
)

// farthestColor is the colour of a grid over hue, saturation and value
// (dark enough to read as a line on white) farthest from all of taken
// (farthest-point sampling: the next colour is the one whose nearest
// taken colour is furthest away, by the weighted RGB distance below).
func farthestColor(taken []color.Color) color.Color {
	var best color.Color
	bestD := -1.0
	for h := 0; h < 360; h += 6 {
		for _, sv := range [][2]float64{{0.9, 0.55}, {0.9, 0.8}, {0.55, 0.5}, {0.6, 0.75}, {0.35, 0.45}} {
			c := hsv(float64(h), sv[0], sv[1])
			d := math.Inf(1)
			for _, t := range taken {
				d = min(d, colorDistance(c, t))
			}
			if d > bestD {
				best, bestD = c, d
			}
		}
	}
	return best
}

// colorDistance is the "redmean" weighted RGB distance, a cheap
// approximation of perceived difference.
func colorDistance(a, b color.Color) float64 {
	ar, ag, ab, _ := a.RGBA()
	br, bg, bb, _ := b.RGBA()
	r1, g1, b1 := float64(ar>>8), float64(ag>>8), float64(ab>>8)
	r2, g2, b2 := float64(br>>8), float64(bg>>8), float64(bb>>8)
	rm := (r1 + r2) / 2
	dr, dg, db := r1-r2, g1-g2, b1-b2
	return math.Sqrt((2+rm/256)*dr*dr + 4*dg*dg + (2+(255-rm)/256)*db*db)
}

// hsv is the colour of hue h (degrees), saturation s and value v (0-1).
func hsv(h, s, v float64) color.Color {
	c := v * s
	x := c * (1 - math.Abs(math.Mod(h/60, 2)-1))
	var r, g, b float64
	switch {
	case h < 60:
		r, g = c, x
	case h < 120:
		r, g = x, c
	case h < 180:
		g, b = c, x
	case h < 240:
		g, b = x, c
	case h < 300:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := v - c
	u := func(f float64) uint8 { return uint8(math.Round(255 * (f + m))) }
	return color.RGBA{u(r), u(g), u(b), 0xff}
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

func newStyler(in []results.Named) *styler {
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
	// Past the palette, the colours are new ones (colorOf), and with one
	// file the next dash pattern marks them too; with several files the
	// dash pattern is the file's.
	d := f
	if len(s.files) == 1 {
		d = i / len(palette)
	}
	return draw.LineStyle{Color: colorOf(i), Width: vg.Points(2), Dashes: dashes[d%len(dashes)]}
}

// glyph is the marker of label's series.
func (s *styler) glyph(label string) draw.GlyphStyle {
	i := s.index(label)
	s.marks = true
	return draw.GlyphStyle{Color: colorOf(i), Radius: vg.Points(4), Shape: glyphs[i%len(glyphs)]}
}

// add draws pts on p as label's series in file: a line in its colour and
// the file's dash pattern, a marker at each point.
func (s *styler) add(p *plot.Plot, pts plotter.XYs, label, file string) error {
	l, g, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.LineStyle = s.line(label, file)
	g.GlyphStyle = s.glyph(label)
	p.Add(l, g)
	return nil
}

// legend lists each label in its colour (and marker), then, when several
// files are drawn, each file's line style with its name and machine.
func (s *styler) legend(in []results.Named) *plot.Legend {
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

// Thumbnail leaves a gap before the entry's text (gonum's legend puts the
// text a space after the thumbnail).
func (t lineThumb) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(t.LineStyle, c.Min.X, y, c.Max.X-vg.Points(4), y)
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

func title(in []results.Named, what string) string {
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
