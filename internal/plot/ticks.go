package plot

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

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
