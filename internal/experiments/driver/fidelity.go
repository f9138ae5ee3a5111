package driver

import (
	"math"
	"slices"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity: lot (the Go port of parking_lot_core 0.9 and parking_lot
// 0.12, internal/lot, results.PortLot) beside the originals
// (results.OriginalLot), when the Rust crates are loaded as a plugin
// (rust/originals, scripts/rust-originals.sh, docs/originals.md). The
// experiments' fidelity claims find the original's rows here; without the
// plugin they add nothing.

// OriginalLoaded reports whether any configuration is a row of the original.
func OriginalLoaded(configs []*results.Config) bool {
	return slices.ContainsFunc(configs, func(c *results.Config) bool { return results.IsOriginal(c, results.OriginalLot) })
}

// Fidelity is the fidelity rules evaluated on configs, nil when the
// original was not run.
func Fidelity(configs []*results.Config, rules ...claim.Rule) []results.Claim {
	if !OriginalLoaded(configs) {
		return nil
	}
	return claim.EvaluateAll(configs, rules...)
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
// says (the first of each kind).
func Original(configs []*results.Config, same func(*results.Config) bool, which OriginalRow) *results.Config {
	row := func(onC bool) *results.Config {
		return claim.Find(configs, func(x *results.Config) bool {
			return results.IsOriginal(x, results.OriginalLot) && same(x) && (x.Kind == results.KindCRef) == onC
		})
	}
	if c := row(false); which == PreferGoThreads && c != nil {
		return c
	}
	return row(true)
}

// RowName names the original's row in evidence: "rust-parking_lot (C
// threads)" or "rust-parking_lot (Go threads, through cgo)".
func RowName(c *results.Config) string {
	if c.Kind == results.KindCRef {
		return c.Impl + " (C threads)"
	}
	return c.Impl + " (Go threads, through cgo)"
}

// Ratios is the port's figure in each round over the original's median
// (its summary). Their median is the ratio of the medians the evidence
// quotes, so the verdict agrees with it; their spread is the port's own.
// (Pairing the rounds instead, results.RoundRatios, let two noisy rounds
// of lock --quick decide 0.98x where the medians said 0.65x.)
func Ratios(port, orig *results.Config, metric string) []float64 {
	o := orig.Summary[metric]
	out := claim.PerRound([]*results.Config{port}, func(m []map[string]float64) (float64, bool) { v, ok := m[0][metric]; return v / o, ok && o > 0 })
	if len(out) == 0 {
		out = []float64{math.NaN()} // fails any limit: nothing to compare
	}
	return out
}
