package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// figure is what Render draws: a title over the panels, the panels in a
// grid, and one legend for all of them right of the grid, outside every
// axis, so that it never covers a line; the image grows taller when the
// legend needs more room, so that it is never cut.
type figure struct {
	title  string
	panels []*plot.Plot
	legend *plot.Legend
	// cols is the grid's width in panels (0: one row).
	cols int
	// note is a line under the title: what the figure left out.
	note string
	// rowHeight is the height of a row of panels when the caller gives
	// none (0: the default); a dot chart's grows with its rows.
	rowHeight vg.Length
	// fit: the image's height follows its rows (size), so its width
	// decides how many panels go side by side (grid).
	fit bool
}

// legendFont is the legend's type size: at the HTML page's width (figure
// widths under 1000 pt are drawn about 1.35 times their size at 1280 px)
// it is 15 px, and in a viewer at 100 % 14.7 px.
const legendFont = 11

// minPanelWidth is the narrowest a panel is drawn: a figure narrower than
// its panels at this width puts fewer of them side by side.
const minPanelWidth = 250 // points

func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(legendFont)
	l.ThumbnailWidth = vg.Points(36)
	l.Padding = vg.Points(3)
	l.Top, l.Left = true, true
	return &l
}

// size is the image's size: the caller's, or a default by the number of
// panels, at least as tall as the legend needs.
func (f *figure) size(w, h vg.Length) (vg.Length, vg.Length) {
	if w == 0 {
		w = 10 * vg.Inch
		if cols, _ := f.grid(0); cols > 1 {
			w = 16 * vg.Inch
		}
	}
	// The width decides the columns only when the height follows the
	// rows; an image of the caller's size keeps the figure's grid.
	f.fit = h == 0
	_, rows := f.grid(w)
	if h == 0 {
		h = 6 * vg.Inch
		if rows > 1 {
			h = vg.Length(rows) * 4 * vg.Inch
		}
		if f.rowHeight > 0 {
			h = vg.Length(rows)*f.rowHeight + f.titleHeight()
		}
	}
	need := f.titleHeight() + vg.Points(24)
	if f.legend != nil {
		need += f.legend.Rectangle(draw.Canvas{}).Size().Y
	}
	return w, vg.Length(math.Max(float64(h), float64(need)))
}

// grid is the panels' layout in an image w wide (0: any width): f.cols
// columns, fewer when they would be narrower than minPanelWidth beside
// the legend.
func (f *figure) grid(w vg.Length) (cols, rows int) {
	n := max(len(f.panels), 1)
	cols = f.cols
	if cols <= 0 || cols > n {
		cols = n
	}
	if w > 0 && f.fit {
		room := w - f.legendWidth()
		cols = max(1, min(cols, int(room/vg.Points(minPanelWidth))))
	}
	rows = (n + cols - 1) / cols
	// As few columns as the rows need: 4 panels in 3 columns are 2 by 2.
	return (n + rows - 1) / rows, rows
}

// legendWidth is the room the legend takes right of the panels.
func (f *figure) legendWidth() vg.Length {
	if f.legend == nil {
		return 0
	}
	lw := f.legend.Rectangle(draw.Canvas{}).Size().X
	if lw > 0 {
		lw += vg.Points(16)
	}
	return lw
}

func titleStyle() plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font.Size = vg.Points(13)
	return *p
}

func (f *figure) titleHeight() vg.Length {
	if f.title == "" {
		return 0
	}
	t := titleStyle()
	return t.Title.TextStyle.Rectangle(f.title).Size().Y + vg.Points(10)
}

// draw renders the figure in format ("svg", "png").
func (f *figure) draw(w, h vg.Length, format string) ([]byte, error) {
	w, h = f.size(w, h)
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

	top := f.titleHeight()
	if f.title != "" {
		t := titleStyle()
		sty := t.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c.FillText(sty, vg.Point{X: c.Center().X, Y: c.Max.Y - vg.Points(6)}, f.title)
	}
	lw := f.legendWidth()
	body := draw.Crop(c, 0, -lw, 0, -top)
	cols, rows := f.grid(w)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 8, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	var marks []string
	for i, p := range f.panels {
		marks = append(marks, markPanel)
		group(c, func() { p.Draw(tiles.At(body, i%cols, i/cols)) })
	}
	if lw > 0 {
		marks = append(marks, markLegend)
		group(c, func() { f.legend.Draw(draw.Crop(c, c.Size().X-lw+vg.Points(8), 0, vg.Points(8), -top-vg.Points(8))) })
	}
	if err := write(); err != nil {
		return nil, err
	}
	if format == "svg" {
		return markGroups(buf.Bytes(), marks), nil
	}
	return buf.Bytes(), nil
}

// The SVG marks each panel's and the legend's group with a class, so that
// a browser can measure them (scripts/cmd/htmlcheck fails a page whose
// legend overlaps a panel or another legend). gonum's SVG canvas writes no
// attributes of its own, so draw opens each group with a transform it
// never writes itself (a scale by 1: gonum's plotters scale only in
// vector fields, which plot does not draw) and markGroups names them in
// order.
const (
	markPanel  = "pb-panel"
	markLegend = "pb-legend"
	groupOpen  = `<g transform="scale(1,1)">`
)

// group draws fn inside a group of its own (an SVG <g>).
func group(c draw.Canvas, fn func()) {
	c.Push()
	c.Scale(1, 1)
	fn()
	c.Pop()
}

// markGroups gives the i-th group opened by group the class marks[i];
// when the count differs (a plotter scaled by 1 after all) it leaves the
// SVG as it is: unmarked groups are a failure of the check, never a
// misnamed one.
func markGroups(svg []byte, marks []string) []byte {
	if bytes.Count(svg, []byte(groupOpen)) != len(marks) {
		return svg
	}
	var out bytes.Buffer
	rest := svg
	for _, m := range marks {
		i := bytes.Index(rest, []byte(groupOpen))
		out.Write(rest[:i])
		fmt.Fprintf(&out, `<g class="%s">`, m)
		rest = rest[i+len(groupOpen):]
	}
	out.Write(rest)
	return out.Bytes()
}
