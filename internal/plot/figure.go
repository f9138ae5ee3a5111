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
}

func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle.Font.Size = vg.Points(10)
	l.ThumbnailWidth = vg.Points(36)
	l.Padding = vg.Points(2)
	l.Top, l.Left = true, true
	return &l
}

// size is the image's size: the caller's, or a default by the number of
// panels, at least as tall as the legend needs.
func (f *figure) size(w, h vg.Length) (vg.Length, vg.Length) {
	cols, rows := f.grid()
	if w == 0 {
		w = 10 * vg.Inch
		if cols > 1 {
			w = 16 * vg.Inch
		}
	}
	if h == 0 {
		h = 6 * vg.Inch
		if rows > 1 {
			h = vg.Length(rows) * 4 * vg.Inch
		}
	}
	need := f.titleHeight() + f.legend.Rectangle(draw.Canvas{}).Size().Y + vg.Points(24)
	return w, vg.Length(math.Max(float64(h), float64(need)))
}

func (f *figure) grid() (cols, rows int) {
	n := max(len(f.panels), 1)
	cols = f.cols
	if cols <= 0 || cols > n {
		cols = n
	}
	return cols, (n + cols - 1) / cols
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
	lw := f.legend.Rectangle(c).Size().X
	if lw > 0 {
		lw += vg.Points(16)
	}
	body := draw.Crop(c, 0, -lw, 0, -top)
	cols, rows := f.grid()
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 8, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3}
	for i, p := range f.panels {
		p.Draw(tiles.At(body, i%cols, i/cols))
	}
	if lw > 0 {
		f.legend.Draw(draw.Crop(c, c.Size().X-lw+vg.Points(8), 0, vg.Points(8), -top-vg.Points(8)))
	}
	if err := write(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
