package plot

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
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

// lockFigure draws lock's total throughput against threads: one panel
// per setting (threads or goroutines, work, locks), one line per
// implementation (a colour and marker each, the same in every panel) and
// file (a dash pattern each), all panels on one scale. A setting with more
// than mostLines lines splits into a panel per family of implementations
// (Go's; C's and pthread's), and a family with more into panels of at
// most mostLines. Beside them, the per-thread distribution (a box per
// implementation of the per-thread acquisitions/s of every repeat) at the
// largest thread count of the first setting.
func lockFigure(in []results.Named, exp string, m results.MetricSpec, sel chosen, st *styler) (*figure, error) {
	type key struct{ file, impl, rest string }
	var order []key
	series := map[key]plotter.XYs{}
	var rests []string
	var allN []float64
	hi := 0.0
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
			rest, t, ok := lockGroup(c)
			v, has := c.Summary[m.Key]
			if !ok || !has || !sel.keep(c) {
				continue
			}
			k := key{n.Name, c.Impl, rest}
			if _, seen := series[k]; !seen {
				order = append(order, k)
			}
			if !slices.Contains(rests, rest) {
				rests = append(rests, rest)
			}
			series[k] = append(series[k], plotter.XY{X: float64(t), Y: v})
			allN = append(allN, float64(t))
			hi = math.Max(hi, v)
		}
	}
	if len(order) == 0 {
		return nil, inputErrorf("%s: the %s experiment has no configuration with a thread count (key .../t=N) and %s", in[0].Name, exp, m.Key)
	}
	names, common := settingNames(rests)
	f := &figure{title: m.Plot.Title}
	if len(common) > 0 {
		f.note = "every line: " + strings.Join(common, "/")
	}
	room := max(1, mostLines/len(in))
	for ri, rest := range rests {
		var impls []string
		for _, k := range order {
			if k.rest == rest && !slices.Contains(impls, k.impl) {
				impls = append(impls, k.impl)
			}
		}
		for _, part := range splitImpls(impls, room) {
			t := names[ri]
			if part.name != "" {
				t += ": " + part.name
			}
			p := basePlot(t)
			p.X.Label.Text = "threads"
			p.Y.Label.Text = m.Plot.Axis
			p.X.Scale = plot.LogScale{}
			for _, k := range order {
				if k.rest != rest || !slices.Contains(part.impls, k.impl) {
					continue
				}
				pts := series[k]
				sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
				// A colour and marker per implementation, a dash
				// pattern per file.
				if err := st.add(p, pts, k.impl, k.file); err != nil {
					return nil, inputErrorf("%s: %s %s: %v", k.file, exp, k.impl, err)
				}
			}
			p.X.Tick.Marker = nTicks(allN)
			p.Y.Min, p.Y.Max = 0, hi*1.05
			p.Y.Tick.Marker = linearTicks{}
			f.panels = append(f.panels, p)
		}
	}
	dist, err := lockDistribution(in, exp, rests[0], names[0], sel, st)
	if err != nil {
		return nil, err
	}
	f.panels = append(f.panels, dist)
	f.cols = 2
	return f, nil
}

// settingNames names lock's settings (the keys' parts between the
// implementation and the thread count) by what tells them apart
// ("goroutines"; "OS threads" for the one without), common the parts
// every setting shares.
func settingNames(rests []string) (names, common []string) {
	keys := make([]string, len(rests))
	for i, r := range rests {
		keys[i] = "s" + r
	}
	short, common := textfmt.ShortKeys(keys)
	for _, s := range short {
		s = strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(s, "s"), "/"), "/", " ")
		if len(rests) == 1 || s == "" {
			s = "OS threads"
		}
		names = append(names, s)
	}
	if len(rests) == 1 {
		common = strings.Split(strings.Trim(rests[0], "/"), "/")
	}
	return names, common
}

// implPart is a panel's share of a setting's implementations.
type implPart struct {
	name  string // "" when the setting is not split
	impls []string
}

// splitImpls splits impls over panels of at most room lines: by family
// (Go's; C's and pthread's), a family with more in equal parts.
func splitImpls(impls []string, room int) []implPart {
	if len(impls) <= room {
		return []implPart{{"", impls}}
	}
	var fams []implPart
	for _, im := range impls {
		name := implFamily(im)
		i := slices.IndexFunc(fams, func(p implPart) bool { return p.name == name })
		if i < 0 {
			i = len(fams)
			fams = append(fams, implPart{name: name})
		}
		fams[i].impls = append(fams[i].impls, im)
	}
	var out []implPart
	for _, fam := range fams {
		n := (len(fam.impls) + room - 1) / room
		for j := range n {
			lo, hi := j*len(fam.impls)/n, (j+1)*len(fam.impls)/n
			p := implPart{fam.name, fam.impls[lo:hi]}
			if n > 1 {
				p.name += " " + strconv.Itoa(j+1) + " of " + strconv.Itoa(n)
			}
			out = append(out, p)
		}
	}
	return out
}

// implFamily is an implementation's family: "C and pthread" for the C
// references and the pthread-based ones, else "Go".
func implFamily(impl string) string {
	if strings.HasPrefix(impl, "c-") || strings.Contains(impl, "pthread") {
		return "C and pthread"
	}
	return "Go"
}

// lockDistribution is one box per implementation (and file): the
// per-thread acquisitions/s (kHz) of every repeat of the configurations
// with setting rest at their largest thread count.
func lockDistribution(in []results.Named, exp, rest, restName string, sel chosen, st *styler) (*plot.Plot, error) {
	maxT := 0
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
			if r, t, ok := lockGroup(c); ok && r == rest {
				maxT = max(maxT, t)
			}
		}
	}
	p := basePlot("per-thread acquisitions/s, " + strconv.Itoa(maxT) + " " + restName)
	p.Y.Label.Text = "per-thread kHz (every thread of every repeat)"
	var ticks plot.ConstantTicks
	hi := 0.0
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
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
