package latency

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity (E12): lot beside parking_lot_core's own park/unpark
// (rust-parking_lot, loaded from rust/originals), in a run that has it.
const (
	ClaimFidelityCross = "E12-fidelity-cross-core"
	ClaimFidelitySelf  = "E12-fidelity-selfwake"

	// FidelityCross: across cores the kernel's wake dominates the figure
	// (10-20 µs on a KVM guest), so the port and the original must agree
	// within 1.1x both ways (the original measured 0.95x of lot's here).
	FidelityCross = 1.1
	// FidelitySelf: the self-wake pair (unpark_one on a key nobody waits
	// on, park whose validate fails) never sleeps: two bucket lock/unlock
	// pairs, a hash and the thread data lookup, 10-12 ns in the original
	// on the AMD EPYC guest. The port may be at most 1.3x the original's
	// (the target of the port's fast-path work; it measured 1.20x on an
	// Intel Xeon guest and 1.56-2.39x on the AMD EPYC one, where the claim
	// fails until that work lands). One-sided: faster is not a failure.
	FidelitySelf = 1.3
)

// FidelityClaims compares lot's cross-core wake with the original's (from
// Go threads when it ran there: the same harness, one cgo call under 1% of
// the wake; else from C threads): the port's median in each round over the
// original's median, within FidelityCross both ways. Nil when the original
// was not run.
func FidelityClaims(lat *results.Experiment) []results.Claim {
	return fidelityClaim(lat.Configs, claim.Rule{ID: ClaimFidelityCross,
		Statement: fmt.Sprintf("lot's cross-core wake takes as long as parking_lot_core's own (rust-parking_lot): median within %.1fx both ways, gap 0", FidelityCross),
		Needs:     "needs lot and rust-parking_lot cross-core with gap 0 (--placement cross-core)",
		Select:    func(c *results.Config) bool { return threads(c) && c.Placement == driver.CrossCore && gapZero(c) },
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			for _, c := range cs {
				if o, onC := driver.Original(cs, driver.OriginalLot, func(*results.Config) bool { return true }, driver.PreferGoThreads); c.Impl == ImplLot && o != nil {
					name := fmt.Sprintf("cross-core: lot %s vs %s %s, lot/original", fmtNs(c.Summary[results.MMedian]), driver.RowName(o, onC), fmtNs(o.Summary[results.MMedian]))
					out = append(out, claim.Fig(name, driver.Ratios(c, o, results.MMedian), c, o).In("x").AtLeast(1/FidelityCross).AtMost(FidelityCross))
				}
			}
			return out
		}})
}

// SelfwakeFidelityClaims compares lot's self-wake pair with the original's
// from C threads (a cgo call costs more than the pair); nil when the
// original was not run.
func SelfwakeFidelityClaims(sw *results.Experiment) []results.Claim {
	return fidelityClaim(sw.Configs, claim.Rule{ID: ClaimFidelitySelf,
		Statement: fmt.Sprintf("lot's self-wake pair is at most %.1fx parking_lot_core's own (rust-parking_lot's native loop on C threads, its park and unpark_one inlined)", FidelitySelf),
		Needs:     "needs lot and c-rust-parking_lot running its own self-wake loop on C threads (rust/originals of ABI version 2; through cgo one call costs more than the pair, through pointers the calls are not the original's)",
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			for _, c := range cs {
				native := func(o *results.Config) bool { return o.Params[ext.LoopParam] == ext.LoopOwn }
				o, _ := driver.Original(cs, driver.OriginalLot, native, driver.CThreadsOnly)
				if c.Impl != ImplLot || o == nil {
					continue
				}
				if a, b := c.Summary[results.MNsPerPair], o.Summary[results.MNsPerPair]; a > 0 && b > 0 {
					name := fmt.Sprintf("lot %.1f ns vs %s %.1f ns per pair, lot/original", a, driver.RowName(o, true), b)
					out = append(out, claim.Fig(name, driver.Ratios(c, o, results.MNsPerPair), c, o).In("x").AtMost(FidelitySelf))
				}
			}
			return out
		}})
}

// fidelityClaim is r evaluated on configs, nil when the original was not
// run.
func fidelityClaim(configs []*results.Config, r claim.Rule) []results.Claim {
	if !driver.OriginalLoaded(configs, driver.OriginalLot) {
		return nil
	}
	return []results.Claim{claim.Evaluate(r, configs)}
}
