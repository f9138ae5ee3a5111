// Package compare judges a new parkbench run against a base run: per
// experiment, configuration and primary metric, the medians over rounds,
// their ranges, the ratio new/base, a Mann-Whitney U test over the rounds
// and a verdict (faster, slower, no change) that a change must earn twice:
// by exceeding the threshold, and by standing out of the noise the rounds
// themselves show.
//
// The verdict rule, for lower-is-better figures (all of parkbench's but
// lock's throughput, whose verdict is mirrored: see HigherBetter):
//
//   - |new/base - 1| <= threshold: no change.
//   - Both sides have enough rounds for the U test to reach alpha (the
//     smallest two-sided p with n1 and n2 rounds is 2/C(n1+n2, n1): 0.10 for
//     3+3, 0.029 for 4+4, 0.008 for 5+5): the change counts if p < alpha.
//   - Fewer rounds (3+3 is the default): no p can reach alpha=0.05, so the
//     change counts only if the two ranges of per-round values do not
//     overlap; the report says the test could not go lower.
//   - One round on a side: there is no noise estimate, so a change beyond
//     the threshold is shown, not judged (not compared), and the reason says
//     so; never a regression.
//   - A side with no rounds at all (a file whose configs[].rounds were
//     dropped), or without the figure the other side has (a file from an
//     older parkbench), cannot be judged: its summary is shown, the verdict
//     is "not compared" and the result says what the file lacks.
//
// What is judged, and how, comes from each experiment's metric description
// (results.MetricSpec): its Judged figures, each in its Better direction.
//
// Runs from different machine classes (results.SameClass) are not
// comparable in raw time: a futex wake on one host is not one on another.
// Compare says so and judges each figure as a ratio to its floor in the
// same run instead (MetricSpec.Floor: latency rows against c-futex at the
// same placement, selfwake against the syscall row, herd against the C
// pthread herd at the same N, lock against c-pthread): the C reference
// pays the same kernel, hypervisor and CPU, so the ratio keeps what the Go
// implementation adds. A figure without a floor in both runs is shown but
// not judged across machines. docs/gate.md says what such a comparison can
// and cannot claim.
package compare

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
	"github.com/parkbench/parkbench/internal/verdict"
)

// Options tune the verdicts.
type Options struct {
	// Threshold is the relative change a figure must exceed to count
	// (0.10: 10%).
	Threshold float64 `json:"threshold"`
	// Alpha is the significance level of the U test.
	Alpha float64 `json:"alpha"`
	// Floors judges every figure as a ratio to its floor in the same run,
	// as across machine classes, also within one class.
	Floors bool `json:"floors,omitempty"`
}

// DefaultOptions are compare's defaults.
var DefaultOptions = Options{Threshold: 0.10, Alpha: 0.05}

// Primary returns the figures compare judges for an experiment: the Judged
// metrics of its description.
func Primary(e *results.Experiment) []results.MetricSpec {
	specs, _ := e.Specs()
	var out []results.MetricSpec
	for _, m := range specs {
		if m.Judged {
			out = append(out, m)
		}
	}
	return out
}

// Stat summarizes one side's rounds of one metric.
type Stat struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	N      int       `json:"n"`
	Values []float64 `json:"values"`
	// File is the figure as the file holds it (its summary), set where the
	// file holds the mean of the rounds, not their median: wake's
	// waker_mean_ns is the mean over its runs (766.6 µs where the rounds'
	// median is 113.5 µs, in the recorded AMD EPYC f25m17 suite). The row
	// shows and compares it; the rounds still decide whether it stands out
	// of their noise. Every other summary figure is the median of the
	// rounds, or a pooled one close to it, and the row shows that median.
	File *float64 `json:"file_figure,omitempty"`
}

// Figure is the figure a row shows and its ratio compares: the file's own
// (File) where set, else the median of the rounds.
func (s Stat) Figure() float64 {
	if s.File != nil {
		return *s.File
	}
	return s.Median
}

// withFile sets s.File from the configuration's summary when the figure
// is a mean by its name (waker_mean_ns) and the summary is the mean of two
// or more rounds, not their median.
func (s Stat) withFile(c *results.Config, metric string) Stat {
	v, ok := c.Summary[metric]
	if !ok || s.N < 2 || !strings.Contains(metric, "mean") {
		return s
	}
	mean := stats.Mean(s.Values)
	if math.Abs(v-mean) <= 1e-9*math.Abs(mean) && math.Abs(v-s.Median) > 1e-3*math.Abs(s.Median) {
		s.File = &v
	}
	return s
}

func newStat(v []float64) Stat {
	v = slices.Clone(v)
	sort.Float64s(v)
	s := Stat{N: len(v), Values: v}
	if len(v) == 0 {
		return s
	}
	s.Min, s.Max, s.Median = v[0], v[len(v)-1], stats.Median(v)
	return s
}

// Row is one configuration x metric.
type Row struct {
	Experiment string `json:"experiment"`
	Config     string `json:"config"`
	Metric     string `json:"metric"`
	Label      string `json:"label"`
	// Unit is the figure's unit (results.MetricSpec.Unit).
	Unit  string  `json:"unit,omitempty"`
	Base  Stat    `json:"base"`
	New   Stat    `json:"new"`
	Ratio float64 `json:"ratio"`
	// Normalized figures (multiples of the same run's floor, NormBy its
	// configuration key) when the machines differ.
	NormBy    string  `json:"norm_by,omitempty"`
	NormBase  *Stat   `json:"norm_base,omitempty"`
	NormNew   *Stat   `json:"norm_new,omitempty"`
	NormRatio float64 `json:"norm_ratio,omitempty"`
	// P is the U test's p-value over the rounds the verdict used; MinP the
	// smallest p those round counts allow.
	P       float64         `json:"p"`
	MinP    float64         `json:"min_p"`
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason"`
}

// MarshalJSON writes a ratio that is not a number (a zero base figure: +Inf)
// as null: encoding/json refuses infinities, and compare --format=json
// once failed on such a file ("json: unsupported value: +Inf").
func (r Row) MarshalJSON() ([]byte, error) {
	type plain Row // without this method
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return &x
	}
	var norm *float64
	if r.NormRatio != 0 { // omitted when unset, as before
		norm = finite(r.NormRatio)
	}
	return json.Marshal(struct {
		plain
		Ratio     *float64 `json:"ratio"`
		NormRatio *float64 `json:"norm_ratio,omitempty"`
	}{plain(r), finite(r.Ratio), norm})
}

// Result is one new file judged against the base.
type Result struct {
	Base         string          `json:"base"`
	New          string          `json:"new"`
	BaseMachine  results.Machine `json:"base_machine"`
	NewMachine   results.Machine `json:"new_machine"`
	CrossMachine bool            `json:"cross_machine"`
	// Class says why the machines are (not) one class (results.SameClass).
	Class   string  `json:"class"`
	Options Options `json:"options"`
	Rows    []Row   `json:"rows"`
	// OnlyBase and OnlyNew list "experiment config" present on one side.
	OnlyBase []string `json:"only_base,omitempty"`
	OnlyNew  []string `json:"only_new,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// Components are the wake anatomies (latency --anatomy) of the
	// configurations both sides traced: which part of a wake differs.
	Components []ComponentDiff `json:"components,omitempty"`
	// Load says which side was recorded under load (results.LoadNote),
	// shown under the machines: its figures carry the other processes'
	// noise, and a verdict against it says as much about them.
	Load []string `json:"load,omitempty"`
	// Lacks says what keeps figures from being judged, per side ("cannot
	// judge: no rounds in the new file ..."), shown above the result.
	Lacks []string `json:"lacks,omitempty"`
	// Floors are the figures' floors (MetricSpec.Floor) with their raw
	// figures on both sides, when rows are judged as ratios to them: a
	// floor that moved is said, with its factor, before any verdict
	// relative to it.
	Floors []Floor `json:"floors,omitempty"`
}

// Floor is one floor's raw figure on both sides ("selfwake syscall ns/pair
// 195 ns → 988 ns, 5.1×") and how many rows are judged relative to it.
type Floor struct {
	Experiment string  `json:"experiment"`
	Config     string  `json:"config"`
	Metric     string  `json:"metric"`
	Label      string  `json:"label"`
	Unit       string  `json:"unit,omitempty"`
	Base       float64 `json:"base"`
	New        float64 `json:"new"`
	Factor     float64 `json:"factor"`
	Moved      bool    `json:"moved"`
	Rows       int     `json:"rows"`
}

// floorMoves lists the floors the rows are judged against, in the rows'
// order; a floor moved when its figure changed by more than the threshold.
func floorMoves(rows []Row, threshold float64) []Floor {
	var out []Floor
	at := map[string]int{}
	for _, r := range rows {
		if r.NormBy == "" {
			continue
		}
		k := r.Experiment + " " + r.NormBy + " " + r.Metric
		if i, ok := at[k]; ok {
			out[i].Rows++
			continue
		}
		i := slices.IndexFunc(rows, func(f Row) bool { return f.Experiment == r.Experiment && f.Config == r.NormBy && f.Metric == r.Metric })
		if i < 0 || rows[i].Base.N == 0 || rows[i].New.N == 0 {
			continue
		}
		f := rows[i]
		fl := Floor{Experiment: r.Experiment, Config: f.Config, Metric: f.Metric, Label: f.Label, Unit: f.Unit,
			Base: f.Base.Figure(), New: f.New.Figure(), Factor: f.Ratio, Rows: 1}
		fl.Moved = math.Abs(fl.Factor-1) > threshold || math.IsInf(fl.Factor, 0)
		at[k] = len(out)
		out = append(out, fl)
	}
	return out
}

// Count returns how many rows have the verdict v.
func (r *Result) Count(v verdict.Verdict) int {
	return verdict.Count(r.Rows, v, func(row Row) verdict.Verdict { return row.Verdict })
}

// Regressed reports whether any row is slower.
func (r *Result) Regressed() bool { return r.Count(verdict.Slower) > 0 }

// Failed reports whether the comparison fails (compare's exit 1): a row
// slower, within one machine class. Across classes a comparison compares
// machines, not code: its slower rows say where the machines differ, and
// the exit status says only whether the files could be compared.
func (r *Result) Failed() bool { return r.Regressed() && !r.CrossMachine }

// NothingInCommonError says two files share no experiment configuration.
type NothingInCommonError struct {
	Base, New       string
	BaseHas, NewHas []string
}

func (e *NothingInCommonError) Error() string {
	list := func(s []string) string {
		if len(s) == 0 {
			return "nothing comparable"
		}
		if len(s) > 4 {
			s = append(s[:4:4], fmt.Sprintf("and %d more", len(s)-4))
		}
		return strings.Join(s, ", ")
	}
	return fmt.Sprintf("%s has nothing in common with %s: the base has %s; the new file has %s", e.New, e.Base, list(e.BaseHas), list(e.NewHas))
}

// CrossMachine reports whether two machines are different machine classes
// (results.SameClass: the slug recomputed from each machine's fields).
func CrossMachine(a, b results.Machine) bool {
	same, _ := results.SameClass(a, b)
	return !same
}

// Compare judges newSide against baseSide; their names are what the
// output and errors call them (file paths).
func Compare(baseSide, newSide results.Named, opt Options) (*Result, error) {
	baseName, base, newName, newFile := baseSide.Name, baseSide.File, newSide.Name, newSide.File
	if opt.Threshold < 0 || opt.Threshold >= 10 || math.IsNaN(opt.Threshold) {
		return nil, fmt.Errorf("threshold %v: want a fraction such as 0.10", opt.Threshold)
	}
	if opt.Alpha <= 0 || opt.Alpha >= 1 || math.IsNaN(opt.Alpha) {
		return nil, fmt.Errorf("alpha %v: want a level in (0, 1) such as 0.05", opt.Alpha)
	}
	same, why := results.SameClass(base.Machine, newFile.Machine)
	res := &Result{Base: baseName, New: newName, BaseMachine: base.Machine, NewMachine: newFile.Machine, Options: opt,
		CrossMachine: !same, Class: why}
	for _, x := range []struct {
		side string
		f    *results.File
	}{{"the base", base}, {"the new file", newFile}} {
		if n := results.LoadNote(x.f); n != "" {
			res.Load = append(res.Load, x.side+" was "+n+": its figures carry the other processes' noise; record a baseline on a quiet machine")
		}
	}
	index := func(f *results.File) (map[string]side, []string) {
		m := map[string]side{}
		var order []string
		for _, e := range f.Experiments {
			if len(Primary(e)) == 0 {
				continue
			}
			// parking_lot's own rows right after lot's, so that the
			// table shows each figure of the port beside the original.
			for _, c := range results.BesidePort(e.Configs) {
				k := e.Name + " " + c.Key
				if _, dup := m[k]; !dup {
					order = append(order, k)
				}
				m[k] = side{e, c}
			}
		}
		return m, order
	}
	bm, border := index(base)
	nm, norder := index(newFile)
	for _, k := range border {
		if _, ok := nm[k]; !ok {
			res.OnlyBase = append(res.OnlyBase, k)
		}
	}
	var common []string
	for _, k := range norder {
		b, ok := bm[k]
		if !ok {
			res.OnlyNew = append(res.OnlyNew, k)
			continue
		}
		common = append(common, k)
		n := nm[k]
		first := len(res.Rows)
		for _, m := range Primary(n.exp) {
			row, ok := compareMetric(b, n, m, res.CrossMachine || opt.Floors, opt)
			if !ok {
				continue
			}
			row.Experiment = n.exp.Name
			res.Rows = append(res.Rows, row)
		}
		if d, ok := componentDiff(res.Rows[first:], opt.Threshold); ok {
			res.Components = append(res.Components, d)
		}
	}
	res.Floors = floorMoves(res.Rows, opt.Threshold)
	if len(common) == 0 {
		return nil, &NothingInCommonError{Base: baseName, New: newName, BaseHas: border, NewHas: norder}
	}
	res.Lacks = lacks(common, bm, nm, res.Rows)
	if !res.CrossMachine {
		var bp, np []*results.Probe
		for _, k := range common {
			bp, np = append(bp, bm[k].cfg.Probe), append(np, nm[k].cfg.Probe)
		}
		res.Warnings = append(res.Warnings, probeWarnings(bp, np)...)
	}
	return res, nil
}

// values returns a config's per-round values of a metric, falling back to
// its summary when no round has it (one value: no noise estimate).
func values(c *results.Config, metric string) []float64 {
	var v []float64
	for _, r := range c.Rounds {
		if x, ok := r.Metrics[metric]; ok && !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		if x, ok := c.Summary[metric]; ok {
			v = append(v, x)
		}
	}
	return v
}

// Why a row is not judged for want of data (the reasons begin so, and
// lacks counts them).
const (
	noRounds  = "cannot judge: no rounds in "
	oneRound  = "one round on a side"
	noFigure  = "cannot judge: no such figure in "
	baseSide  = "the base"
	newSide   = "the new file"
	bothSides = "either file"
)

// lacks sums up, per side, what kept rows from being judged: the
// configurations without rounds, the figures one side lacks, the rows with
// one round. Empty when every row could be judged.
func lacks(common []string, bm, nm map[string]side, rows []Row) []string {
	var out []string
	for _, x := range []struct {
		name string
		m    map[string]side
	}{{baseSide, bm}, {newSide, nm}} {
		n := 0
		for _, k := range common {
			if len(x.m[k].cfg.Rounds) == 0 {
				n++
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("cannot judge: no rounds: %s has no per-round figures in %d of the %d configurations both files have "+
				"(configs[].rounds is empty): their summaries are shown, not judged", x.name, n, len(common)))
		}
	}
	var missing, single int
	for _, r := range rows {
		switch {
		case strings.HasPrefix(r.Reason, noFigure):
			missing++
		case strings.Contains(r.Reason, oneRound):
			single++
		}
	}
	if missing > 0 {
		out = append(out, fmt.Sprintf("cannot judge %d figures one file does not have (written by another parkbench version?): shown as -", missing))
	}
	if single > 0 {
		out = append(out, fmt.Sprintf("%d changes beyond the threshold have one round on a side, so no noise estimate: shown, not judged (record with --rounds 3 or more)", single))
	}
	return out
}

// side is one file's experiment and configuration of a compared key.
type side struct {
	exp *results.Experiment
	cfg *results.Config
}

// floorValues divides a configuration's per-round values by its floor's in
// the same run: round by round when both have as many rounds (the rounds
// ran close in time), else by the floor's median. ok is false when the run
// has no floor for it.
func floorValues(s side, m results.MetricSpec) (v []float64, floorKey string, ok bool) {
	floorKey = m.FloorKey(s.cfg)
	if floorKey == "" {
		return nil, "", false
	}
	fc := s.exp.Config(floorKey)
	if fc == nil {
		return nil, floorKey, false
	}
	cv, fv := values(s.cfg, m.Key), values(fc, m.Key)
	if len(cv) == 0 || len(fv) == 0 {
		return nil, floorKey, false
	}
	fmed := newStat(fv).Median
	for i, x := range cv {
		d := fmed
		if len(fv) == len(cv) {
			d = fv[i]
		}
		if d <= 0 {
			return nil, floorKey, false
		}
		v = append(v, x/d)
	}
	return v, floorKey, true
}

func compareMetric(b, n side, m results.MetricSpec, cross bool, opt Options) (Row, bool) {
	bv, nv := values(b.cfg, m.Key), values(n.cfg, m.Key)
	if len(bv) == 0 && len(nv) == 0 {
		// Neither has it: not a figure of this configuration.
		return Row{}, false
	}
	row := Row{Config: n.cfg.Key, Metric: m.Key, Label: m.Header, Unit: m.Unit,
		Base: newStat(bv).withFile(b.cfg, m.Key), New: newStat(nv).withFile(n.cfg, m.Key)}
	row.Ratio = ratio(row.New.Figure(), row.Base.Figure())
	judgeB, judgeN, r := row.Base, row.New, row.Ratio
	row.P, row.MinP = 1, MinP(row.Base.N, row.New.N)
	// A side without the figure, or without rounds, cannot be judged:
	// its summary alone is one value with no noise estimate, and a file
	// that lost its rounds once read "REGRESSION: 17 slower".
	if why := lacking(b.cfg, n.cfg, len(bv) > 0, len(nv) > 0); why != "" {
		row.Verdict, row.Reason, row.P = verdict.NotCompared, why, 1
		if len(bv) == 0 || len(nv) == 0 {
			row.Ratio = 0 // no ratio: shown as -
		}
		return row, true
	}
	if cross {
		fb, bk, okb := floorValues(b, m)
		fn, _, okn := floorValues(n, m)
		if !okb || !okn {
			why := "different machines and no floor in the same run to divide by"
			if bk != "" {
				why = "different machines and " + bk + " (its floor) is missing from a run"
			}
			row.Verdict, row.Reason = verdict.NotCompared, why
			return row, true
		}
		nb, nn := newStat(fb), newStat(fn)
		row.NormBy, row.NormBase, row.NormNew = bk, &nb, &nn
		row.NormRatio = ratio(nn.Median, nb.Median)
		judgeB, judgeN, r = nb, nn, row.NormRatio
	}
	row.Verdict, row.Reason, row.P, row.MinP = judge(judgeB, judgeN, r, opt)
	if m.HigherIsBetter() {
		switch row.Verdict {
		case verdict.Faster:
			row.Verdict = verdict.Slower
		case verdict.Slower:
			row.Verdict = verdict.Faster
		}
	}
	if cross {
		row.Reason = "as a ratio to " + row.NormBy + " in the same run: " + row.Reason
	}
	return row, true
}

// lacking says why a row cannot be judged for want of data ("" when it
// can): a side without the figure, or without any rounds.
func lacking(b, n *results.Config, bHas, nHas bool) string {
	which := func(bad func(c *results.Config, has bool) bool) string {
		switch bb, nb := bad(b, bHas), bad(n, nHas); {
		case bb && nb:
			return bothSides
		case bb:
			return baseSide
		case nb:
			return newSide
		}
		return ""
	}
	if w := which(func(_ *results.Config, has bool) bool { return !has }); w != "" {
		return noFigure + w
	}
	if w := which(func(c *results.Config, _ bool) bool { return len(c.Rounds) == 0 }); w != "" {
		return noRounds + w + " (only its summary)"
	}
	return ""
}

func ratio(n, b float64) float64 {
	if b == 0 {
		if n == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return n / b
}

// MinP is verdict.MinP: the smallest p the U test can give with n1 and n2
// rounds.
func MinP(n1, n2 int) float64 { return verdict.MinP(n1, n2) }

func judge(b, n Stat, r float64, opt Options) (v verdict.Verdict, reason string, p, minP float64) {
	p, minP = 1, MinP(b.N, n.N)
	if b.N >= 2 && n.N >= 2 {
		p = verdict.UTest(b.Values, n.Values)
	}
	change := r - 1
	dir := verdict.Slower
	if change < 0 {
		dir = verdict.Faster
	}
	pct := fmt.Sprintf("%+.1f%%", 100*change)
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return verdict.NotCompared, "the base figure is zero", p, minP
	}
	if math.Abs(change) <= opt.Threshold {
		return verdict.NoChange, fmt.Sprintf("%s is within the ±%g%% threshold", pct, 100*opt.Threshold), p, minP
	}
	if b.N < 2 || n.N < 2 {
		// Nothing tells the change from the noise: shown, never a
		// regression (nor an improvement).
		return verdict.NotCompared, fmt.Sprintf("%s beyond the threshold, but %s: no noise estimate, not judged", pct, oneRound), p, minP
	}
	apart := n.Min > b.Max || n.Max < b.Min
	if minP < opt.Alpha {
		if p < opt.Alpha {
			return dir, fmt.Sprintf("%s, p=%.3f < α=%g (n=%d+%d)", pct, p, opt.Alpha, b.N, n.N), p, minP
		}
		return verdict.NoChange, fmt.Sprintf("%s but p=%.2f ≥ α=%g (n=%d+%d): noise", pct, p, opt.Alpha, b.N, n.N), p, minP
	}
	if apart {
		return dir, fmt.Sprintf("%s, the rounds do not overlap (n=%d+%d: the U test cannot go below p=%.2f)", pct, b.N, n.N, minP), p, minP
	}
	return verdict.NoChange, fmt.Sprintf("%s but the rounds overlap (n=%d+%d): noise", pct, b.N, n.N), p, minP
}

// probeWarnings flags a floor that moved between runs on one machine class
// (base and new probes of the common configurations, pairwise): the host
// itself changed, so the figures may have moved with it.
func probeWarnings(base, new []*results.Probe) []string {
	var bs, ns []float64
	for i := range base {
		b, n := base[i], new[i]
		if b != nil && n != nil && b.SpinOneWayNs > 0 && n.SpinOneWayNs > 0 {
			bs, ns = append(bs, b.SpinOneWayNs), append(ns, n.SpinOneWayNs)
		}
	}
	if len(bs) == 0 {
		return nil
	}
	b, n := newStat(bs).Median, newStat(ns).Median
	if r := n / b; r > 1.25 || r < 0.8 {
		return []string{fmt.Sprintf("the spin one-way probe moved from %.0f ns to %.0f ns (x%.2f): the host changed between the runs, so raw figures may have moved with it", b, n, r)}
	}
	return nil
}
