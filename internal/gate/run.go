package gate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/stats"
	"github.com/parkbench/parkbench/internal/verdict"
)

// Side is which binary a trial ran.
type Side string

// The two sides of the A/B.
const (
	Base Side = "base"
	New  Side = "new"
)

// Row is one headline figure the gate judges: a metric of a configuration,
// as a ratio to its floor configuration in the same trial when it has one.
type Row struct {
	Experiment string `json:"experiment"`
	Config     string `json:"config"`
	Impl       string `json:"impl"`
	Metric     string `json:"metric"`
	Header     string `json:"header"`
	// Floor is the floor configuration's key ("c-futex/cross-core"), ""
	// when the figure is judged raw.
	Floor string `json:"floor,omitempty"`
	// Higher is true for a higher-is-better figure.
	Higher bool `json:"higher,omitempty"`
	// Unit is the metric's (results.MetricSpec.Unit).
	Unit string `json:"unit,omitempty"`
}

// ID names the row in trials and output: "latency futex/cross-core median_ns".
func (r Row) ID() string { return r.Experiment + " " + r.Config + " " + r.Metric }

// Label is the row's name in the table: "futex/cross-core median/c-futex".
func (r Row) Label() string {
	l := r.Config + " " + r.Header
	if r.Floor != "" {
		f, _, _ := strings.Cut(r.Floor, "/")
		l += "/" + f
	}
	return l
}

// Trial is one process launch of one binary and what it measured.
type Trial struct {
	Index    int           `json:"index"`
	Side     Side          `json:"side"`
	Look     int           `json:"look"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"duration_ns"`
	// Values holds each row's figure (by Row.ID), a ratio to its floor.
	Values map[string]float64 `json:"values"`
	// Raw holds each measured configuration's figure (by "experiment
	// config metric") before the division, in the metric's unit.
	Raw map[string]float64 `json:"raw,omitempty"`
	// Multimodal lists the rows whose configuration (or floor) the trial
	// found multimodal (results.Config.Modes).
	Multimodal []string `json:"multimodal,omitempty"`
	// Load is the 1-minute load average when the trial started (-1: not
	// known).
	Load float64 `json:"load"`
}

// Source runs trials: a process launch of one side's binary measuring the
// given rows (the gate's own runner, ProcessSource), or synthetic samples
// in the tests.
type Source interface {
	Trial(ctx context.Context, side Side, rows []Row) (*Trial, error)
}

// RowResult is a row and its judgement.
type RowResult struct {
	Row
	Judgement
	// MultimodalBase and MultimodalNew count the trials that found the
	// row multimodal on each side.
	MultimodalBase int `json:"multimodal_base,omitempty"`
	MultimodalNew  int `json:"multimodal_new,omitempty"`
}

// Outcome is a gate run's answer.
type Outcome struct {
	// Regression is true when a row or the geomean is slower.
	Regression bool        `json:"regression"`
	Rows       []RowResult `json:"rows"`
	// Geomean is the aggregate verdict: per trial, the geometric mean of
	// the rows' figures (first-look trials, which measure every row).
	Geomean RowResult `json:"geomean"`
	Options Options   `json:"options"`
	// Order is the trial order, one ABBA or BAAB block per word.
	Order    []string      `json:"order"`
	Trials   []*Trial      `json:"trials"`
	Duration time.Duration `json:"duration_ns"`
}

// Count returns how many rows have verdict v.
func (o *Outcome) Count(v verdict.Verdict) int {
	return verdict.Count(o.Rows, v, func(r RowResult) verdict.Verdict { return r.Verdict })
}

// Progress hears of each finished trial.
type Progress func(t *Trial, done, planned int)

// Run runs the A/B: Options.Trials a side in ABBA blocks (each block ABBA
// or BAAB at random, from Options.Seed), judges every row and the geomean,
// then, while rows are unknown and MaxTrials allows, runs Step more a side
// for those rows only and judges them again. Base and new alternate within
// each block, so a drift of the machine during the run falls on both
// sides alike; each trial is its own process, so the samples are launches,
// not rounds of one process.
func Run(ctx context.Context, src Source, rows []Row, opt Options, progress Progress) (*Outcome, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no headline rows to judge")
	}
	start := time.Now()
	order := rand.New(rand.NewPCG(opt.Seed, 0xab))
	boot := rand.New(rand.NewPCG(opt.Seed, 0xb007))
	out := &Outcome{Options: opt}
	results := make([]RowResult, len(rows))
	for i, r := range rows {
		results[i].Row = r
	}
	pending := make([]int, len(rows))
	for i := range pending {
		pending[i] = i
	}
	perSide := 0
	planned := 2 * opt.Trials
	for look := 1; ; look++ {
		target := opt.Trials + (look-1)*opt.Step
		last := look == opt.Looks()
		if target > opt.MaxTrials {
			target = opt.MaxTrials
		}
		sub := make([]Row, len(pending))
		for k, i := range pending {
			sub[k] = rows[i]
		}
		for perSide < target {
			block := []Side{Base, New, New, Base}
			word := "ABBA"
			if order.IntN(2) == 1 {
				block, word = []Side{New, Base, Base, New}, "BAAB"
			}
			out.Order = append(out.Order, word)
			for _, side := range block {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				t, err := src.Trial(ctx, side, sub)
				if err != nil {
					return nil, err
				}
				t.Index, t.Side, t.Look = len(out.Trials)+1, side, look
				out.Trials = append(out.Trials, t)
				if progress != nil {
					progress(t, len(out.Trials), planned)
				}
			}
			perSide += 2
		}
		tests := make([]test, len(pending))
		for k, i := range pending {
			tests[k] = samples(out.Trials, rows[i])
		}
		if look == 1 {
			tests = append(tests, geomeanTest(out.Trials, rows))
		}
		js := judgeLook(tests, look, last, opt, boot)
		if look == 1 {
			out.Geomean = RowResult{Row: Row{Config: fmt.Sprintf("geomean of %d rows", len(rows)), Header: "geomean"}, Judgement: js[len(js)-1]}
			if out.Geomean.Verdict == verdict.Unknown {
				// The geomean is judged once, on the trials that measure
				// every row; it is not extended.
				out.Geomean.Reason = strings.Replace(out.Geomean.Reason, ": more trials", " (judged at the first look only)", 1)
			}
		}
		var still []int
		for k, i := range pending {
			results[i].Judgement = js[k]
			if js[k].Verdict == verdict.Unknown {
				still = append(still, i)
			}
		}
		pending = still
		failed := out.Geomean.Verdict == verdict.Slower
		for _, r := range results {
			failed = failed || r.Verdict == verdict.Slower
		}
		if failed && len(pending) > 0 && !last {
			// The gate has failed whatever the unknown rows turn out to
			// be: no more trials.
			for _, i := range pending {
				results[i].Reason = strings.Replace(results[i].Reason, ": more trials", "; not extended: the gate already failed", 1)
			}
			break
		}
		if len(pending) == 0 || last {
			break
		}
		planned = len(out.Trials) + 2*(min(opt.MaxTrials, target+opt.Step)-perSide)
	}
	for i := range results {
		for _, t := range out.Trials {
			for _, id := range t.Multimodal {
				if id == rows[i].ID() {
					if t.Side == Base {
						results[i].MultimodalBase++
					} else {
						results[i].MultimodalNew++
					}
				}
			}
		}
	}
	out.Rows = results
	out.Regression = out.Geomean.Verdict == verdict.Slower || out.Count(verdict.Slower) > 0
	out.Duration = time.Since(start)
	return out, nil
}

// samples collects a row's per-trial values on each side.
func samples(trials []*Trial, r Row) test {
	t := test{higher: r.Higher}
	for _, tr := range trials {
		v, ok := tr.Values[r.ID()]
		if !ok || math.IsNaN(v) {
			continue
		}
		if tr.Side == Base {
			t.base = append(t.base, v)
		} else {
			t.new = append(t.new, v)
		}
	}
	return t
}

// geomeanTest is the geometric mean over rows of each first-look trial's
// figures, higher-is-better ones inverted so that lower is better for all.
func geomeanTest(trials []*Trial, rows []Row) test {
	var t test
	for _, tr := range trials {
		if tr.Look != 1 {
			continue
		}
		v := make([]float64, 0, len(rows))
		for _, r := range rows {
			x := tr.Values[r.ID()]
			if r.Higher && x > 0 {
				x = 1 / x
			}
			v = append(v, x)
		}
		g := stats.Geomean(v)
		if math.IsNaN(g) { // no rows, or a figure not above zero: no geomean
			continue
		}
		if tr.Side == Base {
			t.base = append(t.base, g)
		} else {
			t.new = append(t.new, g)
		}
	}
	return t
}
