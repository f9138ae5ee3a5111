package lock

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/results"
)

// Port fidelity: lot's Mutex beside parking_lot's own (rust-parking_lot,
// loaded from rust/originals), in a run that has it.
const (
	ClaimFidelity = "lock-fidelity"

	// FidelityLock: at 1 and 2 threads with zero work the lock never or
	// rarely sleeps, so the figure is the fast path (a CAS to lock, one to
	// unlock) plus the loop: the port must make at least 0.9x the
	// original's throughput (the target of the port's fast-path work; the
	// port measured 0.4-0.6x at 1 thread and 0.55-0.67x at 2 on the AMD
	// EPYC guest against a Rust loop, 1/1.32 = 0.76x at 2 on an Intel Xeon
	// guest). One-sided: faster is not a failure. The original runs its
	// own loop on C threads (ABI version 2: parking_lot's lock inlined, as
	// in a Rust program; through pointers it paid an indirect call per
	// lock and unlock, which flattered the port); the port in Go's loop.
	FidelityLock = 0.9
	// FidelityMaxThreads: the thread counts judged, up to this one.
	FidelityMaxThreads = 2
)

// FidelityClaims compares lot with the original from C threads at 1 and 2
// threads, zero work, one lock; nil when the original was not run.
func FidelityClaims(configs []*results.Config) []results.Claim {
	zero := func(c *results.Config) bool {
		// On locked threads, as the original's C threads: lot on plain
		// goroutines (--participants=goroutines) is another question.
		return !isGoroutines(c) && c.Params["pattern"] == "loop" && c.Params["work_in"] == "0s" && c.Params["work_between"] == "0s" && c.Params["locks"] == "1" &&
			c.IntParam("threads") >= 1 && c.IntParam("threads") <= FidelityMaxThreads
	}
	return driver.Fidelity(configs, claim.Rule{ID: ClaimFidelity,
		Statement: fmt.Sprintf("lot's Mutex makes at least %.1fx the throughput of parking_lot's own (rust-parking_lot's native loop on C threads, its lock inlined) at 1 and 2 threads, zero work, one lock", FidelityLock),
		Needs:     "needs lot and c-rust-parking_lot running its own loop on C threads (rust/originals of ABI version 2) at 1 or 2 threads, zero work (lock --threads 1,2 --work-in 0 --work-between 0)",
		How:       "per thread count, lot's throughput in each repeat over the original's median",
		Select:    zero,
		Figures: func(cs []*results.Config) (out []claim.Figure) {
			for _, c := range cs {
				// The original's native loop only: not its function
				// pointers' row (c-rust-parking_lot.fp, or a version-1
				// build's c-rust-parking_lot).
				same := func(o *results.Config) bool {
					return o.Params["threads"] == c.Params["threads"] && o.Params[ext.LoopParam] == ext.LoopOwn
				}
				o := driver.Original(cs, same, driver.CThreadsOnly)
				if c.Impl != results.PortLot || o == nil {
					continue
				}
				if a, b := c.Summary[MTotalMops], o.Summary[MTotalMops]; a > 0 && b > 0 {
					name := fmt.Sprintf("t=%s: lot %.1f vs %s %.1f Mops/s, lot/original", c.Params["threads"], a, driver.RowName(o), b)
					out = append(out, claim.Fig(name, driver.Ratios(c, o, MTotalMops), c, o).In("x").AtLeast(FidelityLock))
				}
			}
			return out
		}})
}
