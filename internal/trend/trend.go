package trend

import (
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/textfmt"
)

// Point is one recorded result's figure in a series.
type Point struct {
	Path    string    `json:"path"`
	Started time.Time `json:"started"`
	Commit  string    `json:"commit,omitempty"`
	Value   float64   `json:"value"`
}

// Series is one judged figure of one configuration over a machine class's
// results, oldest first.
type Series struct {
	Class      string  `json:"class"`
	Experiment string  `json:"experiment"`
	Config     string  `json:"config"`
	Metric     string  `json:"metric"`
	Header     string  `json:"header"`
	Unit       string  `json:"unit,omitempty"`
	Points     []Point `json:"points"`
	// Changes are where it moved.
	Changes []ChangePoint `json:"changes,omitempty"`
}

// Report is what Analyze found.
type Report struct {
	Dir     string   `json:"dir"`
	Classes []string `json:"classes"`
	// Runs is each class's number of recorded runs, in Classes' order.
	Runs []int `json:"runs"`
	// Files read, and those skipped (unreadable), with why.
	Files   int      `json:"files"`
	Skipped []string `json:"skipped,omitempty"`
	// Tested counts the series long enough to test; Series holds those
	// that moved.
	Tested  int      `json:"tested"`
	Series  []Series `json:"series"`
	Options Options  `json:"options"`
}

// Load reads every result file under dir (dir/*.json, dir/*/*.json),
// skipping (and listing) the ones that do not decode.
func Load(dir string) (files []*results.File, paths, skipped []string, err error) {
	if err := results.StatDir(dir); err != nil {
		return nil, nil, nil, err
	}
	var all []string
	for _, pat := range []string{"*.json", filepath.Join("*", "*.json")} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return nil, nil, nil, err
		}
		all = append(all, m...)
	}
	for _, p := range all {
		f, err := results.ReadFile(p)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		files, paths = append(files, f), append(paths, p)
	}
	return files, paths, skipped, nil
}

// Analyze groups the files by machine class (results.SameClass, so a
// class recorded under an older slug rule joins its class), keeps the
// classes that match class ("" for all; a slug or a prefix of one), builds
// one series per class, experiment, configuration and judged figure (the
// metric description's Judged), in start-time order, and finds each
// series' change points. The permutations are seeded per series, so a run
// is reproducible.
func Analyze(dir string, files []*results.File, paths []string, class string, o Options) *Report {
	rep := &Report{Dir: dir, Files: len(files), Options: o}
	// Classes: the slug of the first file of each group; a file joins the
	// first group it is SameClass with.
	type group struct {
		slug  string
		m     results.Machine
		files []int
	}
	var groups []*group
	for i, f := range files {
		var g *group
		for _, c := range groups {
			if same, _ := results.SameClass(c.m, f.Machine); same {
				g = c
				break
			}
		}
		if g == nil {
			g = &group{slug: results.Slug(f.Machine), m: f.Machine}
			groups = append(groups, g)
		}
		// Prefer the slug of a machine that records family and model.
		if f.Machine.CPUFamily > 0 && g.m.CPUFamily == 0 {
			g.slug, g.m = results.Slug(f.Machine), f.Machine
		}
		g.files = append(g.files, i)
	}
	for _, g := range groups {
		if class != "" && !strings.HasPrefix(g.slug, class) {
			continue
		}
		rep.Classes = append(rep.Classes, g.slug)
		rep.Runs = append(rep.Runs, len(g.files))
		sort.SliceStable(g.files, func(a, b int) bool { return files[g.files[a]].Started.Before(files[g.files[b]].Started) })
		by := map[string]*Series{}
		var order []string
		for _, i := range g.files {
			f := files[i]
			for _, e := range f.Experiments {
				specs, _ := e.Specs()
				for _, m := range specs {
					if !m.Judged {
						continue
					}
					for _, c := range e.Configs {
						v, ok := c.Summary[m.Key]
						if !ok {
							continue
						}
						k := e.Name + " " + c.Key + " " + m.Key
						s := by[k]
						if s == nil {
							s = &Series{Class: g.slug, Experiment: e.Name, Config: c.Key, Metric: m.Key, Header: m.Header, Unit: m.Unit}
							by[k] = s
							order = append(order, k)
						}
						s.Points = append(s.Points, Point{Path: paths[i], Started: f.Started, Commit: f.Tool.Commit, Value: v})
					}
				}
			}
		}
		for _, k := range order {
			s := by[k]
			if len(s.Points) < 2*max(o.MinSegment, 2) {
				continue
			}
			rep.Tested++
			x := make([]float64, len(s.Points))
			for i, p := range s.Points {
				x[i] = p.Value
			}
			h := fnv.New64a()
			io.WriteString(h, k)
			s.Changes = Detect(x, o, rand.New(rand.NewPCG(h.Sum64(), 1)))
			if len(s.Changes) > 0 {
				rep.Series = append(rep.Series, *s)
			}
		}
	}
	return rep
}

// Render writes one line per series that moved, per change point: where
// (the first run after the change, its commit and time), from what to
// what, and the test's p.
func Render(w io.Writer, r *Report) {
	// Every line within textfmt.Columns, continuation lines indented.
	line := func(indent, format string, a ...any) {
		fmt.Fprintln(w, textfmt.Wrap(fmt.Sprintf(format, a...), textfmt.Columns, indent, indent+"    "))
	}
	var classes []string
	for i, c := range r.Classes {
		if i < len(r.Runs) {
			c += fmt.Sprintf(" (%d runs)", r.Runs[i])
		}
		classes = append(classes, c)
	}
	if r.Tested == 0 {
		line("", "parkbench trend: nothing to test yet: a series needs %d recorded runs of one machine class (%d files under %s; classes: %s)",
			2*r.Options.MinSegment, r.Files, r.Dir, strings.Join(classes, ", "))
	} else {
		line("", "parkbench trend: %d moved of %d series tested (%d files under %s; classes: %s)",
			len(r.Series), r.Tested, r.Files, r.Dir, strings.Join(classes, ", "))
	}
	line("  ", "method: e-divisive means, permutation test p < %g (%d permutations), segments of %d runs at least, changes of %g%% or more; "+
		"a series needs %d runs; about %.1f false change points are expected among %d series without a change",
		r.Options.P, r.Options.Permutations, r.Options.MinSegment, 100*r.Options.MinChange,
		2*r.Options.MinSegment, r.Options.P*float64(r.Tested), r.Tested)
	for _, s := range r.Skipped {
		line("  ", "skipped: %s", s)
	}
	for _, s := range r.Series {
		for _, c := range s.Changes {
			p := s.Points[c.Index]
			commit := p.Commit
			if len(commit) > 12 {
				commit = commit[:12]
			}
			if commit == "" {
				commit = "no commit recorded"
			}
			line("", "%s %s %s: %s -> %s (%+.1f%%) from %s (%s, %s), p=%.3f", s.Experiment, s.Config, s.Header,
				value(c.Before, s.Unit), value(c.After, s.Unit), 100*(c.After/c.Before-1), p.Started.UTC().Format("2006-01-02 15:04Z"),
				commit, filepath.Base(p.Path), c.P)
		}
	}
}

func value(v float64, unit string) string {
	switch unit {
	case results.UnitMicros:
		return fmt.Sprintf("%.2f µs", v/1000)
	case results.UnitNanos:
		return fmt.Sprintf("%.0f ns", v)
	}
	return fmt.Sprintf("%.3g", v)
}
