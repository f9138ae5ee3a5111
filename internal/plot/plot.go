// Package plot draws result files, as each experiment's metric description
// says (results.PlotSpec): a figure of kind percentile (latency, timeout)
// as the latency by percentile (HdrHistogram's percentile-distribution
// plot: x is the percentile on a log scale of 1/(1-p), y the latency in
// µs), one line per configuration, the rounds' histograms merged, one
// panel per placement or setting (the key without its implementation); of
// kind param (herd's first-waiter and total time) against a configuration
// parameter, one panel per figure, one line per configuration group; of
// kind threads (lock) as total throughput against threads, a panel per
// setting and family of implementations, with the per-thread distribution
// beside it (lock.go); of kind tradeoff (spin) as one figure against
// another, one line per value of a parameter (tradeoff.go). An experiment
// whose description plots no figure (selfwake, rwlock) draws its judged
// figures as dot charts, a row per configuration (dots.go).
//
// Every figure has one legend, right of its panels and outside every axis
// (figure.go; in an SVG the panels and the legend are groups marked for
// scripts/cmd/htmlcheck, which fails a legend over a panel): a colour per implementation, and when several files are
// drawn a line style per file, each file named with its machine, so that
// two files read as a comparison. Options.Impls and Options.Configs choose
// what is drawn; without them a figure with many configurations draws the
// headline ones (Options.Preferred: the implementations the caller names
// for the experiment, and their floors) or, for an experiment without
// them, the floors and a few implementations spread over the range of the
// figure.
// The image format follows the output file's extension (.svg, .png).
package plot

import (
	"fmt"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg"

	"github.com/parkbench/parkbench/internal/atomicfile"
	"github.com/parkbench/parkbench/internal/results"
)

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
	// Preferred names, per experiment, the implementations a crowded panel
	// draws by default when its figure is a headline one, with their
	// floors (the caller's choice: the command passes the A/B gate's
	// rows); an experiment without them gets the floors and a spread.
	Preferred map[string][]string
	// Width and Height of the image; 0 picks a default (taller when the
	// legend needs it).
	Width, Height vg.Length
	// Page lays the figure out for a web page 1280 px wide (report
	// --format=html): PageWidth wide, rows of panels pageRowHeight tall
	// (unless Width and Height say otherwise), so that the image is shown
	// at about 1.35 times its size and its smallest type (10 pt tick
	// labels) at 13 px.
	Page bool
}

// PageWidth is the width of a figure drawn for a web page (Options.Page).
const PageWidth vg.Length = 900

// pageRowHeight is the height of a row of panels on a web page.
const pageRowHeight vg.Length = 230

// Plottable lists the experiments of files without a metric description
// that this package can draw (a described experiment is plottable when a
// figure of its description has a PlotSpec).
var Plottable = func() []string {
	var out []string
	for _, name := range results.LegacyNames() {
		if specs, _ := results.Legacy(name); len(drawnSpecs(specs)) > 0 {
			out = append(out, name)
		}
	}
	return out
}()

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

// Render draws the inputs into an image of the given format ("svg", "png").
func Render(in []results.Named, format string, opt Options) ([]byte, error) {
	if len(in) == 0 {
		return nil, inputErrorf("no result files to plot")
	}
	exp, err := chooseExperiment(in, opt.Experiment)
	if err != nil {
		return nil, err
	}
	specs, _ := in[0].File.Experiment(exp).Specs()
	drawn := drawnSpecs(specs)
	sel, err := selection(in, exp, drawn[0], opt)
	if err != nil {
		return nil, err
	}
	if k := drawn[0].Plot.Kind; (k == plotDots || k == results.PlotThreads) && len(opt.Impls) == 0 && len(opt.Configs) == 0 {
		// A dot chart names each row, and lock's figure splits its
		// implementations over panels of at most mostLines: every
		// configuration is drawn.
		sel = chosen{keep: func(*results.Config) bool { return true }}
	}
	st := newStyler(in)
	var f *figure
	switch drawn[0].Plot.Kind {
	case results.PlotParam:
		f, err = paramFigure(in, exp, drawn, sel, st)
	case results.PlotThreads:
		f, err = lockFigure(in, exp, drawn[0], sel, st)
	case results.PlotTradeoff:
		f, err = tradeoffFigure(in, exp, drawn[0], sel)
	case plotDots:
		f, err = dotFigure(in, exp, drawn, sel)
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
	if f.legend == nil {
		f.legend = st.legend(in)
	}
	if opt.Page {
		if opt.Width == 0 {
			opt.Width = PageWidth
		}
		if f.rowHeight == 0 {
			f.rowHeight = pageRowHeight
		}
	}
	return f.draw(opt.Width, opt.Height, format)
}

// WriteFile renders and writes path atomically (temporary file, rename), so
// a failed or interrupted plot leaves no half-written image.
func WriteFile(path string, in []results.Named, opt Options) error {
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
