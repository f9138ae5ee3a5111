package plot

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

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
	if e := f.Experiment(name); e != nil {
		specs, _ := e.Specs()
		return len(drawnSpecs(specs)) > 0
	}
	specs, _ := results.Legacy(name)
	return len(drawnSpecs(specs)) > 0
}

// chooseExperiment returns the experiment to draw from all inputs.
func chooseExperiment(in []results.Named, want string) (string, error) {
	if want != "" {
		if !canPlot(in[0].File, want) {
			return "", inputErrorf("cannot plot experiment %q: plots exist for %s", want, strings.Join(Plottable, ", "))
		}
		for _, n := range in {
			if n.File.Experiment(want) == nil {
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
func selection(in []results.Named, exp string, m results.MetricSpec, opt Options) (chosen, error) {
	var impls []string // every implementation, in order
	total := 0
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
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
			for _, c := range n.File.Experiment(exp).Configs {
				if keep(c) {
					return chosen{keep: keep}, nil
				}
			}
		}
		return chosen{}, inputErrorf("no %s configuration matches --impl=%s --config=%s (implementations: %s)", exp,
			strings.Join(opt.Impls, ","), strings.Join(opt.Configs, ","), strings.Join(impls, ", "))
	}
	if lines(in, exp, impls) <= mostLines {
		return chosen{keep: func(*results.Config) bool { return true }}, nil
	}
	pick := headlineImpls(in, exp, m, impls, opt.Preferred[exp])
	keep := func(c *results.Config) bool { return slices.Contains(pick, c.Impl) }
	shown := 0
	for _, n := range in {
		for _, c := range n.File.Experiment(exp).Configs {
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
// preferred ones when the figure is a headline one (Options.Preferred),
// with their floors; otherwise the floors
// of the figure and implementations spread over its range (the fastest,
// the slowest and evenly between, by the median over their
// configurations), mostLines in all.
func headlineImpls(in []results.Named, exp string, m results.MetricSpec, impls, preferred []string) []string {
	var pick []string
	// add adds a group of implementations (one and its floor) together or
	// not at all. An implementation takes a line per file that has it: with
	// several files a panel draws each once per file, and mostLines bounds
	// lines.
	add := func(group ...string) {
		more := slices.Clone(pick)
		for _, i := range group {
			if i != "" && slices.Contains(impls, i) && !slices.Contains(more, i) {
				more = append(more, i)
			}
		}
		if lines(in, exp, more) <= mostLines {
			pick = more
		}
	}
	if m.Headline {
		for _, i := range preferred {
			add(i, m.FloorImpl(i))
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
			for _, c := range n.File.Experiment(exp).Configs {
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
	room := (mostLines - lines(in, exp, pick)) / max(len(in), 1)
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

// lines bounds the lines a panel of exp draws for impls: one per file and
// implementation the file has.
func lines(in []results.Named, exp string, impls []string) int {
	n := 0
	for _, f := range in {
		seen := map[string]bool{}
		for _, c := range f.File.Experiment(exp).Configs {
			if !seen[c.Impl] && slices.Contains(impls, c.Impl) {
				seen[c.Impl] = true
				n++
			}
		}
	}
	return n
}
