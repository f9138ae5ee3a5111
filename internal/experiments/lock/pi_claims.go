package lock

import (
	"fmt"
	"slices"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// ClaimPIPrice is what priority inheritance costs when nothing inverts.
const ClaimPIPrice = "lock-pi-price"

// piShare: uncontended, a PI lock keeps at least this share of its plain
// counterpart's throughput (the fast path is the same one CAS).
const piShare = 0.5

// piPairs are each PI lock's plain counterpart.
var piPairs = map[string]string{"pi-futex": "std-futex", "pthread-pi": "pthread", "c-pthread-pi": "c-pthread"}

// piRule judges the uncontended price (1 thread) and shows the contended
// one (2 threads), where every PI handoff goes through the kernel (no
// spinning, no barging: FUTEX_LOCK_PI queues by priority and
// FUTEX_UNLOCK_PI hands over), as google/perfetto PR #1648 measured; the C
// pair is the floor, shown too.
var piRule = claim.Rule{ID: ClaimPIPrice, Statement: fmt.Sprintf(
	"priority inheritance costs little when nothing contends: at 1 thread each PI lock keeps at least %.0f%% of its plain counterpart's throughput "+
		"(pi-futex vs std-futex, pthread-pi vs pthread: the same single CAS to lock); contended (2 threads) every handoff enters the kernel, reported beside",
	piShare*100),
	Needs: "needs pi-futex with std-futex or pthread-pi with pthread at 1 thread in the loop pattern",
	Select: func(c *results.Config) bool {
		t := c.IntParam("threads")
		return c.Params["pattern"] == "loop" && (t == 1 || t == 2)
	},
	Figures: func(cs []*results.Config) (out []claim.Figure) {
		for _, pc := range cs {
			pair := piPairs[pc.Impl]
			if o := twin(cs, pc, pair); pair != "" && o != nil && o.Summary[MTotalMops] > 0 {
				f := claim.Ratio(fmt.Sprintf("%s %s/%s", groupKey(pc), pc.Impl, pair), pc, o, MTotalMops).AtLeast(piShare).
					With(fmt.Sprintf("%.1f vs %.1f Mops", pc.Summary[MTotalMops], o.Summary[MTotalMops]))
				switch {
				case pc.IntParam("threads") == 2:
					f = f.Skip("contended: every handoff in the kernel")
				case pc.Impl == "c-pthread-pi":
					f = f.Skip("the C floor")
				}
				out = append(out, f)
			}
		}
		slices.SortFunc(out, byName)
		return out
	}}
