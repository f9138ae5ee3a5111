package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity (E12): lot beside parking_lot_core's own park/unpark
// (rust-parking_lot, loaded from rust/originals), in a run that has it.
const (
	ClaimFidelityCross = "E12-fidelity-cross-core"

	// FidelityCross: across cores the kernel's wake dominates the figure
	// (10-20 µs on a KVM guest), so the port and the original must agree
	// within 1.1x both ways (the original measured 0.95x of lot's here).
	FidelityCross = 1.1
)

// FidelityClaims compares lot's cross-core wake with the original's (from
// Go threads when it ran there: the same harness, one cgo call under 1% of
// the wake; else from C threads): the port's median in each round over the
// original's median, within FidelityCross both ways. Nil when the original
// was not run.
func FidelityClaims(lat *results.Experiment) []results.Claim {
	return driver.Fidelity(lat.Configs, claim.Rule{ID: ClaimFidelityCross,
		Statement: fmt.Sprintf("lot's cross-core wake takes as long as parking_lot_core's own (rust-parking_lot): median within %.1fx both ways, gap 0", FidelityCross),
		Needs:     "needs lot and rust-parking_lot cross-core with gap 0 (--placement cross-core)",
		Select:    func(c *results.Config) bool { return threads(c) && c.Placement == driver.CrossCore && gapZero(c) },
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			for _, c := range cs {
				if o := driver.Original(cs, func(*results.Config) bool { return true }, driver.PreferGoThreads); c.Impl == ImplLot && o != nil {
					name := fmt.Sprintf("cross-core: lot %s vs %s %s, lot/original", fmtNs(c.Summary[results.MMedian]), driver.RowName(o), fmtNs(o.Summary[results.MMedian]))
					out = append(out, claim.Fig(name, driver.Ratios(c, o, results.MMedian), c, o).In("x").AtLeast(1/FidelityCross).AtMost(FidelityCross))
				}
			}
			return out
		}})
}
