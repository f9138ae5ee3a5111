package driver

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity: lot (the Go port of parking_lot_core 0.9 and parking_lot
// 0.12, internal/lot) beside the originals, when the Rust crates are loaded
// as a plugin (rust/originals, scripts/rust-originals.sh, docs/originals.md).
// The experiments' fidelity claims find the original's rows here; without
// the plugin they add nothing.
const (
	// PortLot is the port's implementation name.
	PortLot = results.PortLot
	// OriginalLot is parking_lot_core's and parking_lot's own
	// implementation, as rust/originals names it.
	OriginalLot = results.OriginalLot
	// KindCRef is the kind of a row measured on C threads (no Go runtime
	// and no cgo call in the measured path).
	KindCRef = results.KindCRef
)

// IsOriginal reports whether c is a row of the original name
// (results.IsOriginal).
func IsOriginal(c *results.Config, name string) bool { return results.IsOriginal(c, name) }

// OriginalLoaded reports whether any configuration is a row of name.
func OriginalLoaded(configs []*results.Config, name string) bool {
	for _, c := range configs {
		if IsOriginal(c, name) {
			return true
		}
	}
	return false
}

// Which row of the original a fidelity claim compares with.
type OriginalRow int

const (
	// PreferGoThreads: the row from Go threads (through cgo) when there is
	// one, else the row from C threads. For figures in microseconds
	// (a wake across cores, a herd), where the cgo call is under 1% of the
	// figure: the original then runs in the port's own harness.
	PreferGoThreads OriginalRow = iota
	// CThreadsOnly: the row from C threads only (the original as itself:
	// no Go runtime, no cgo call in the measured path). For figures of a
	// few nanoseconds (a self-wake pair, an uncontended lock), where one
	// cgo call costs more than what is compared.
	CThreadsOnly
)

// Original is the original's row in the group same accepts, as which
// says; onC reports whether it is the row from C threads.
func Original(configs []*results.Config, name string, same func(*results.Config) bool, which OriginalRow) (c *results.Config, onC bool) {
	var goRow, cRow *results.Config
	for _, x := range configs {
		if !IsOriginal(x, name) || !same(x) {
			continue
		}
		if x.Kind == KindCRef {
			cRow = cmpOr(cRow, x)
		} else {
			goRow = cmpOr(goRow, x)
		}
	}
	switch {
	case which == PreferGoThreads && goRow != nil:
		return goRow, false
	case cRow != nil:
		return cRow, true
	}
	return nil, false
}

func cmpOr(a, b *results.Config) *results.Config {
	if a != nil {
		return a
	}
	return b
}

// RowName names the original's row in evidence: "rust-parking_lot (C
// threads)" or "rust-parking_lot (Go threads, through cgo)".
func RowName(c *results.Config, onC bool) string {
	if onC {
		return c.Impl + " (C threads)"
	}
	return c.Impl + " (Go threads, through cgo)"
}

// Within reports whether a and b are within factor of each other, both
// ways (max/min <= factor), and gives a/b. Two positive figures are
// needed; anything else is not within.
func Within(a, b, factor float64) (ratio float64, ok bool) {
	if !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return math.NaN(), false
	}
	r := a / b
	return r, max(r, 1/r) <= factor
}

// Ratios is the port's figure in each round over the original's median
// (its summary). Their median is the ratio of the medians the evidence
// quotes, so the verdict agrees with it; their spread is the port's own.
// (Pairing the rounds instead, results.RoundRatios, let two noisy rounds
// of lock --quick decide 0.98x where the medians said 0.65x.)
func Ratios(port, orig *results.Config, metric string) []float64 {
	o := orig.Summary[metric]
	var out []float64
	for _, v := range results.RoundValues(port, metric) {
		if o > 0 {
			out = append(out, v/o)
		}
	}
	if len(out) == 0 {
		out = []float64{math.NaN()} // fails any limit: nothing to compare
	}
	return out
}

// FidelityLimits is "port within factor of the original, both ways" as
// two results.Limit on Ratios: at most factor, and at least 1/factor.
// figure names the comparison (it is the claim's Why when it fails).
func FidelityLimits(figure string, port, orig *results.Config, metric string, factor float64) []results.Limit {
	rs := Ratios(port, orig, metric)
	return []results.Limit{
		{Figure: figure, Rounds: rs, Limit: factor, AtMost: true, Unit: "x"},
		{Figure: figure, Rounds: rs, Limit: 1 / factor, Unit: "x"},
	}
}

// Fidelity gathers a fidelity claim's comparisons, each a figure (a part of
// the evidence) and the limits it is judged on.
type Fidelity struct {
	parts  []string
	limits []results.Limit
}

// Add is one comparison: its figure and its limits.
func (f *Fidelity) Add(figure string, limits ...results.Limit) {
	f.parts = append(f.parts, figure)
	f.limits = append(f.limits, limits...)
}

// Judge writes the figures as cl's evidence and decides cl on the limits
// (JudgeFidelity).
func (f *Fidelity) Judge(cl *results.Claim, notEvaluatedWhy string) {
	cl.Evidence = strings.Join(f.parts, "; ")
	JudgeFidelity(cl, f.limits, notEvaluatedWhy)
}

// JudgeFidelity decides a fidelity claim on its limits (results.Claim.Judge:
// holds when every comparison is within, near its limit when the rounds
// straddle it): not evaluated, with why, when there is none; when it does
// not hold, Why is the first failing comparison.
func JudgeFidelity(cl *results.Claim, limits []results.Limit, notEvaluatedWhy string) {
	if len(limits) == 0 {
		cl.Verdict = results.NotEvaluated
		cl.Why = notEvaluatedWhy
		if cl.Evidence == "" {
			cl.Evidence = notEvaluatedWhy
		}
		return
	}
	cl.Judge(limits...)
	if cl.Verdict != results.DoesNotHold {
		return
	}
	n := 0
	for _, l := range limits {
		if ok, _ := l.Decide(); !ok {
			if n == 0 {
				lim := strconv.FormatFloat(l.Limit, 'g', 3, 64)
				if l.Unit == "x" {
					lim = strconv.FormatFloat(l.Limit, 'f', 2, 64) + "x"
				}
				side := "beyond"
				if !l.AtMost {
					side = "below"
				}
				cl.Why = fmt.Sprintf("%s, %s %s", l.Figure, side, lim)
			}
			n++
		}
	}
	if n > 1 {
		cl.Why += fmt.Sprintf(" (and %d more)", n-1)
	}
}
