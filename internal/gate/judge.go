package gate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/parkbench/parkbench/internal/optionerr"
	"github.com/parkbench/parkbench/internal/stats"
	"github.com/parkbench/parkbench/internal/verdict"
)

// Options tune the gate's statistics and how many trials it runs.
type Options struct {
	// Trials per side before the first look (even: ABBA blocks give two a
	// side), MaxTrials per side at most, Step per side added at each
	// further look, only for the rows still unknown.
	Trials, MaxTrials, Step int
	// Alpha is the family-wise false-alarm rate of a whole gate run: the
	// headline rows and the geomean, over every look (Bonferroni over the
	// looks, Holm over the tests of each look).
	Alpha float64
	// MinEffect is the smallest change that counts (0.03: 3%): a
	// significant change below it is "same", and "same" without
	// significance needs the interval to exclude a change this large.
	MinEffect float64
	// Confidence of the bootstrap interval of the ratio of medians, and
	// Resamples its resamples.
	Confidence float64
	Resamples  int
	// Seed orders the ABBA blocks and seeds the bootstrap; recorded.
	Seed uint64
}

// DefaultOptions is the gate as CI runs it (docs/gate.md says why each).
var DefaultOptions = Options{Trials: 10, MaxTrials: 22, Step: 6, Alpha: 0.01, MinEffect: 0.03, Confidence: 0.95, Resamples: 2000}

// Looks is how many times the gate may judge: the first look and one per
// extension up to MaxTrials.
func (o Options) Looks() int {
	if o.MaxTrials <= o.Trials || o.Step <= 0 {
		return 1
	}
	return 1 + (o.MaxTrials-o.Trials+o.Step-1)/o.Step
}

// LookAlpha is the family-wise level of one look: Alpha split evenly over
// the looks, so a run's false-alarm rate stays at most Alpha however many
// looks it takes (the union bound over looks).
func (o Options) LookAlpha() float64 { return o.Alpha / float64(o.Looks()) }

// Validate checks the options; errors are *optionerr.Error naming the
// field (the experiments' convention: the command names its flag).
func (o Options) Validate() error {
	switch {
	case o.Trials < 4 || o.Trials%2 != 0:
		return optionerr.Bad("Trials", "invalid trials %d: want an even number, at least 4 (the U test needs 4+4 to reach p < 0.03)", o.Trials)
	case o.MaxTrials < o.Trials:
		return optionerr.Bad("MaxTrials", "invalid max-trials %d: want at least the trials (%d)", o.MaxTrials, o.Trials)
	case o.MaxTrials > o.Trials && (o.Step < 2 || o.Step%2 != 0):
		return optionerr.Bad("Step", "invalid step %d: want an even number, at least 2", o.Step)
	case !(o.Alpha > 0 && o.Alpha < 0.5):
		return optionerr.Bad("Alpha", "invalid alpha %v: want a level in (0, 0.5), such as 0.01", o.Alpha)
	case !(o.MinEffect >= 0 && o.MinEffect < 1):
		return optionerr.Bad("MinEffect", "invalid min-effect %v: want a fraction in [0, 1), such as 0.03", o.MinEffect)
	case !(o.Confidence > 0.5 && o.Confidence < 1):
		return optionerr.Bad("Confidence", "invalid confidence %v: want a level in (0.5, 1), such as 0.95", o.Confidence)
	case o.Resamples < 100:
		return optionerr.Bad("Resamples", "invalid resamples %d: want at least 100", o.Resamples)
	}
	return nil
}

// Judgement is a row's statistics at the look that decided it.
type Judgement struct {
	// BaseMedian and NewMedian are the medians over trials of the judged
	// figure (a ratio to the row's floor); Ratio is NewMedian/BaseMedian
	// and [Lo, Hi] its bootstrap interval.
	BaseMedian float64 `json:"base_median"`
	NewMedian  float64 `json:"new_median"`
	Ratio      float64 `json:"ratio"`
	Lo         float64 `json:"ci_lo"`
	Hi         float64 `json:"ci_hi"`
	// P is the row's p-value, twice the smaller of the U test's (PU: a
	// shift) and the scale test's (PScale: a change of spread over trials,
	// such as a second regime in some of them), Bonferroni over the two;
	// PAdj is Holm's adjustment over the tests of the look, judged against
	// Options.LookAlpha.
	P      float64 `json:"p"`
	PU     float64 `json:"p_u"`
	PScale float64 `json:"p_scale"`
	PAdj   float64 `json:"p_adj"`
	NBase  int     `json:"n_base"`
	NNew   int     `json:"n_new"`
	Look   int     `json:"look"`
	// Verdict is Same, Slower, Faster or Unknown (verdict: Pinpoint's
	// three-way answer, with "different" split by direction); Reason says
	// why. Slower fails the gate.
	Verdict verdict.Verdict `json:"verdict"`
	Reason  string          `json:"reason"`
}

// test is one hypothesis of a look: a row (or the geomean) with its
// per-trial values on each side, lower is better.
type test struct {
	base, new []float64
	higher    bool // the figure is higher-is-better (ratios are mirrored)
}

// tailWorse is how much worse the bad quartile is on the new side: the
// upper quartile of a lower-is-better figure, the lower one of a
// higher-is-better one.
func tailWorse(t test) float64 {
	if t.higher {
		return stats.Quantile(t.base, 0.25)/stats.Quantile(t.new, 0.25) - 1
	}
	return stats.Quantile(t.new, 0.75)/stats.Quantile(t.base, 0.75) - 1
}

// judgeLook judges the tests of one look: U tests, Holm over them at
// Options.LookAlpha, then each verdict (decide). last says whether no
// further look will come (an unknown stays unknown).
func judgeLook(tests []test, look int, last bool, opt Options, rng *rand.Rand) []Judgement {
	p := make([]float64, len(tests))
	pu := make([]float64, len(tests))
	ps := make([]float64, len(tests))
	for i, t := range tests {
		pu[i], ps[i] = uTest(t.base, t.new), scaleTest(t.base, t.new)
		p[i] = math.Min(1, 2*math.Min(pu[i], ps[i]))
	}
	adj := holm(p)
	out := make([]Judgement, len(tests))
	for i, t := range tests {
		out[i] = decide(t, p[i], adj[i], look, last, opt, rng)
		out[i].PU, out[i].PScale = pu[i], ps[i]
	}
	return out
}

// decide is one row's verdict. With r = median(new)/median(base), the
// change that counts is r-1 for a lower-is-better figure (1/r-1 for a
// higher-is-better one), positive when worse:
//
//   - significant (Holm-adjusted p <= LookAlpha): slower when the change is
//     at least MinEffect, faster when at most -MinEffect; when the medians
//     moved less, slower if the bad quartile (the upper one of a
//     lower-is-better figure) moved by MinEffect or more (a regime that
//     shows in some trials only: the distribution changed, not its
//     middle), else same (a real but smaller change);
//   - not significant: same when the interval of r excludes a change of
//     MinEffect or more in the bad direction and the bad quartile did not
//     move that much either, else unknown: more trials, until MaxTrials
//     (then it stays unknown, and does not fail the gate).
func decide(t test, p, padj float64, look int, last bool, opt Options, rng *rand.Rand) Judgement {
	j := Judgement{P: p, PAdj: padj, NBase: len(t.base), NNew: len(t.new), Look: look,
		// A side with no trial has a NaN median (stats), so a NaN ratio:
		// the comparisons below are all false and the row stays unknown.
		BaseMedian: stats.Median(t.base), NewMedian: stats.Median(t.new)}
	j.Ratio = j.NewMedian / j.BaseMedian
	j.Lo, j.Hi = ratioCI(t.base, t.new, opt.Confidence, opt.Resamples, rng)
	worse, worstCI := j.Ratio-1, j.Hi-1
	if t.higher {
		worse, worstCI = 1/j.Ratio-1, 1/j.Lo-1
	}
	pct := fmt.Sprintf("%+.1f%%", 100*worse)
	if t.higher {
		pct = fmt.Sprintf("%+.1f%% (higher is better)", 100*(j.Ratio-1))
	}
	sig := padj <= opt.LookAlpha()
	n := fmt.Sprintf("n=%d+%d", j.NBase, j.NNew)
	switch {
	case math.IsNaN(j.Ratio) || math.IsInf(j.Ratio, 0):
		j.Verdict, j.Reason = verdict.Unknown, "no ratio: a median is zero or missing"
	case sig && worse >= opt.MinEffect:
		j.Verdict, j.Reason = verdict.Slower, fmt.Sprintf("%s, p_adj=%.2g <= %.2g (%s)", pct, padj, opt.LookAlpha(), n)
	case sig && worse <= -opt.MinEffect:
		j.Verdict, j.Reason = verdict.Faster, fmt.Sprintf("%s, p_adj=%.2g <= %.2g (%s)", pct, padj, opt.LookAlpha(), n)
	case sig && tailWorse(t) >= opt.MinEffect:
		j.Verdict, j.Reason = verdict.Slower, fmt.Sprintf("median %s but the bad quartile %+.1f%%: the spread over trials changed (p_adj=%.2g, %s)",
			pct, 100*tailWorse(t), padj, n)
	case sig:
		j.Verdict, j.Reason = verdict.Same, fmt.Sprintf("%s: significant but within ±%g%% (%s)", pct, 100*opt.MinEffect, n)
	case worstCI < opt.MinEffect && tailWorse(t) < opt.MinEffect:
		j.Verdict, j.Reason = verdict.Same, fmt.Sprintf("%s, the interval excludes +%g%% (%s)", pct, 100*opt.MinEffect, n)
	case last:
		j.Verdict, j.Reason = verdict.Unknown, fmt.Sprintf("%s, p_adj=%.2g: +%g%% not excluded after %s (no more trials)", pct, padj, 100*opt.MinEffect, n)
	default:
		j.Verdict, j.Reason = verdict.Unknown, fmt.Sprintf("%s, p_adj=%.2g: +%g%% not excluded yet (%s): more trials", pct, padj, 100*opt.MinEffect, n)
	}
	return j
}
