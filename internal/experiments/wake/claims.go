package wake

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs.
const (
	ClaimRequeueCheaper = "wake-requeue-cheaper"
	ClaimUnparkAll      = "wake-lot-unparkall"
	ClaimHashFlat       = "wake-lot-hash-flat"
	ClaimCondvar448     = "wake-condvar-448"
)

// Tolerances of the claims.
const (
	// UnparkAllLimit: lot's UnparkAll of N may cost the waker up to 1.2x
	// N raw FUTEX_WAKE calls (it makes N FUTEX_WAKEs itself, one per
	// thread's own word, after one bucket lock).
	UnparkAllLimit = 1.2
	// HashFlatMin: "flat" is the slowest per-thread rate from 1 to NumCPU
	// threads at least 0.8 of the fastest.
	HashFlatMin = 0.8
	// Gap448: parking_lot #448's gap is reproduced when std's items/s are
	// at least 2x lot's (the issue saw 5.4x).
	Gap448 = 2.0
)

// Claims evaluates wake's claims from the measured configurations; numCPU
// bounds the hash claim's thread range. It is a pure function of its input.
func Claims(configs []*results.Config, numCPU int) []results.Claim {
	return claim.EvaluateAll(configs,
		// perf's premise: tools/perf/bench/futex-requeue.c:7-9.
		claim.Rule{ID: ClaimRequeueCheaper,
			Statement: "requeueing N waiters onto another key costs the waker less than waking them (perf bench futex requeue's premise): requeue's median (over runs) below wake's at the same N and per-call count, per implementation (futex, futex-shared, c-futex, lot; std-requeue's notify_all is itself a requeue)",
			Needs:     "needs the wake and requeue benches of one implementation at the same N and per-call count",
			How:       "per pair, requeue's waker median / wake's in each round",
			// std-requeue's notify_all already requeues (it wakes one and
			// moves the rest): its wake bench is no "waking N" to compare.
			Select: func(c *results.Config) bool { return c.Impl != "std-requeue" },
			Each: func(r *results.Config, cs []*results.Config) []claim.Figure {
				wk := strings.Replace(strings.Replace(r.Key, "/"+BenchRequeue+"/", "/"+BenchWake+"/", 1), "/q=", "/w=", 1)
				if w := find(cs, wk); r.Params["bench"] == BenchRequeue && w != nil {
					name := fmt.Sprintf("%s n=%s per call %s requeue/wake", r.Impl, r.Params["n"], r.Params["per_call"])
					return []claim.Figure{claim.Ratio(name, r, w, MWakerMedian).Below(1).
						With(fmt.Sprintf("requeue %s vs wake %s", claim.Us(r.Summary[MWakerMedian]), claim.Us(w.Summary[MWakerMedian])))}
				}
				return nil
			}},
		claim.Rule{ID: ClaimUnparkAll,
			Statement: fmt.Sprintf("lot's UnparkAll of N costs the waker no more than %.1fx N raw FUTEX_WAKE calls (futex, one at a time), at each N (medians over runs: a run's time is bimodal here, a wake that reaches an idle vCPU costs several times one that does not, and a mean of ten follows the mix)", UnparkAllLimit),
			Needs:     "needs lot's wake with --wakes including 0 (all at once) and futex's with 1, at the same N",
			How:       "per N, lot's waker median / futex's in each round (round i of each in the same pass)",
			Select: func(c *results.Config) bool {
				return c.Impl == "lot" && c.Params["bench"] == BenchWake && c.Params["per_call"] == "all"
			},
			Each: func(l *results.Config, _ []*results.Config) []claim.Figure {
				if f := find(configs, fmt.Sprintf("futex/%s/n=%s/w=1", BenchWake, l.Params["n"])); f != nil {
					return []claim.Figure{claim.Ratio("n="+l.Params["n"]+" lot/futex", l, f, MWakerMedian).AtMost(UnparkAllLimit).
						With(fmt.Sprintf("lot UnparkAll %s vs futex %s", claim.Us(l.Summary[MWakerMedian]), claim.Us(f.Summary[MWakerMedian])))}
				}
				return nil
			}},
		// Round by round: the thread counts' round r ran in the same pass.
		claim.Rule{ID: ClaimHashFlat,
			Statement: fmt.Sprintf("lot's hash table stays flat from 1 to NumCPU threads under perf's hash load (Park whose validate fails at once, over 1024 keys per thread): the slowest per-thread rate at least %.1f of the fastest", HashFlatMin),
			Needs:     fmt.Sprintf("needs lot's hash bench at 1 and at NumCPU (%d) threads", numCPU),
			Select:    func(c *results.Config) bool { return c.Params["bench"] == BenchHash && c.IntParam("n") <= numCPU },
			Figures: func(cs []*results.Config) []claim.Figure {
				lots := slices.DeleteFunc(slices.Clone(cs), func(c *results.Config) bool { return c.Impl != "lot" })
				hasN := func(n int) bool {
					return slices.ContainsFunc(lots, func(c *results.Config) bool { return c.IntParam("n") == n })
				}
				if numCPU < 2 || !hasN(1) || !hasN(numCPU) {
					return nil
				}
				note := "lot: " + rates(lots)
				if futex := slices.DeleteFunc(slices.Clone(cs), func(c *results.Config) bool { return c.Impl != "futex" }); len(futex) > 1 {
					note += "; the kernel's (futex): " + rates(futex)
				}
				return []claim.Figure{claim.Fig("lot slowest/fastest per-thread rate", claim.PerRound(lots, flatness), lots...).In("x").AtLeast(HashFlatMin).With(note)}
			}},
		claim.Rule{ID: ClaimCondvar448,
			Statement: fmt.Sprintf("parking_lot issue #448: one producer and one consumer over a bounded queue with notify_one per item run several times slower on parking_lot's Condvar than on std's (34.0 s against 6.3 s there, 5.4x); here: std's items/s at least %.0fx lot's", Gap448),
			Needs:     "needs the condvar bench of lot and std",
			Select:    func(c *results.Config) bool { return c.Params["bench"] == BenchCondvar },
			Figures: func(cs []*results.Config) []claim.Figure {
				lot, std := find(cs, "lot"), find(cs, "std")
				if lot == nil || std == nil {
					return nil
				}
				return []claim.Figure{claim.Ratio("std/lot items/s", std, lot, MItemsPerSec).AtLeast(Gap448)}
			},
			Context: func(cs []*results.Config) (out []string) {
				for _, c := range cs {
					out = append(out, fmt.Sprintf("%s %.0f k items/s, %.2f switches/item", c.Impl, c.Summary[MItemsPerSec]/1e3, c.Summary[MCswPerItem]))
				}
				return out
			}},
	)
}

// find returns the configuration with this key (or implementation), or nil.
func find(configs []*results.Config, key string) *results.Config {
	return claim.Find(configs, func(c *results.Config) bool { return c.Key == key || c.Impl == key })
}

// flatness is the slowest rate over the fastest among the metrics of one
// round (or of the summaries) of hash configurations.
func flatness(m []map[string]float64) (float64, bool) {
	lo, hi := math.Inf(1), 0.0
	for _, x := range m {
		v, ok := x[MOpsPerSec]
		if !ok {
			return 0, false
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo / hi, hi > 0
}

// rates are the hash configurations' per-thread rates: "1 thr 67.66 M/s, 2 thr 13.88 M/s".
func rates(cs []*results.Config) string {
	cs = slices.SortedFunc(slices.Values(cs), func(a, b *results.Config) int { return a.IntParam("n") - b.IntParam("n") })
	var parts []string
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%d thr %.2f M/s", c.IntParam("n"), c.Summary[MOpsPerSec]/1e6))
	}
	return strings.Join(parts, ", ")
}
