package wake

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/results"
)

// Claim IDs.
const (
	ClaimRequeueCheaper = "wake-requeue-cheaper"
	ClaimUnparkAll      = "wake-lot-unparkall"
	ClaimHashFlat       = "wake-lot-hash-flat"
	ClaimCondvar448     = "wake-condvar-448"
)

// Tolerances of the claims, explicit so that a verdict can be checked by
// hand from the table.
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
	return []results.Claim{
		claimRequeue(configs),
		claimUnparkAll(configs),
		claimHashFlat(configs, numCPU),
		claim448(configs),
	}
}

// find returns the configuration with this key, or nil.
func find(configs []*results.Config, key string) *results.Config {
	for _, c := range configs {
		if c.Key == key {
			return c
		}
	}
	return nil
}

func fmtUs(ns float64) string { return strconv.FormatFloat(ns/1000, 'f', 2, 64) + " µs" }

// wake-requeue-cheaper: perf's premise (tools/perf/bench/futex-requeue.c:
// 7-9): moving N waiters to another key without waking them costs the
// waker less than waking them.
func claimRequeue(configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimRequeueCheaper,
		Statement: "requeueing N waiters onto another key costs the waker less than waking them (perf bench futex requeue's premise): requeue's median (over runs) below wake's at the same N and per-call count, per implementation (futex, futex-shared, c-futex, lot; std-requeue's notify_all is itself a requeue)"}
	var ev, bad []string
	var limits []results.Limit
	evaluated := 0
	for _, r := range configs {
		// std-requeue's notify_all already requeues (it wakes one and
		// moves the rest): its wake bench is no "waking N" to compare.
		if r.Params["bench"] != BenchRequeue || r.Impl == "std-requeue" {
			continue
		}
		wk := strings.Replace(strings.Replace(r.Key, "/"+BenchRequeue+"/", "/"+BenchWake+"/", 1), "/q=", "/w=", 1)
		w := find(configs, wk)
		if w == nil {
			continue
		}
		evaluated++
		rq, wm := r.Summary[MWakerMedian], w.Summary[MWakerMedian]
		s := fmt.Sprintf("%s n=%s per call %s: requeue %s vs wake %s (%.2fx)", r.Impl, r.Params["n"], r.Params["per_call"], fmtUs(rq), fmtUs(wm), rq/wm)
		// Below 1: requeue cheaper, round by round.
		l := results.Limit{Figure: fmt.Sprintf("%s n=%s requeue/wake", r.Impl, r.Params["n"]), Rounds: results.RoundRatios(r, w, MWakerMedian), Limit: math.Nextafter(1, 0), AtMost: true, Unit: "x"}
		limits = append(limits, l)
		if ok, _ := l.Decide(); !ok {
			bad = append(bad, s)
		} else {
			ev = append(ev, s)
		}
	}
	if evaluated == 0 {
		cl.Verdict = results.NotEvaluated
		cl.Evidence = "needs the wake and requeue benches of one implementation at the same N and per-call count"
		return cl
	}
	cl.Judge(limits...)
	cl.Evidence = fmt.Sprintf("rule: per pair, the median of the rounds' requeue/wake ratios below 1; %d pairs", evaluated)
	if len(bad) > 0 {
		cl.Evidence += "; failing: " + strings.Join(bad, "; ")
	}
	if len(ev) > 0 {
		cl.Evidence += "; holding: " + strings.Join(ev, "; ")
	}
	return cl
}

// wake-lot-unparkall: lot's UnparkAll of N against N raw FUTEX_WAKEs.
func claimUnparkAll(configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimUnparkAll,
		Statement: fmt.Sprintf("lot's UnparkAll of N costs the waker no more than %.1fx N raw FUTEX_WAKE calls (futex, one at a time), at each N (medians over runs: a run's time is bimodal here, a wake that reaches an idle vCPU costs several times one that does not, and a mean of ten follows the mix)", UnparkAllLimit)}
	var parts []string
	var limits []results.Limit
	for _, l := range configs {
		if l.Impl != "lot" || l.Params["bench"] != BenchWake || l.Params["per_call"] != "all" {
			continue
		}
		f := find(configs, fmt.Sprintf("futex/%s/n=%s/w=1", BenchWake, l.Params["n"]))
		if f == nil {
			continue
		}
		lm, fm := l.Summary[MWakerMedian], f.Summary[MWakerMedian]
		limits = append(limits, results.Limit{Figure: "n=" + l.Params["n"] + " lot/futex", Rounds: results.RoundRatios(l, f, MWakerMedian), Limit: UnparkAllLimit, AtMost: true, Unit: "x"})
		parts = append(parts, fmt.Sprintf("n=%s: lot UnparkAll %s vs futex %s (%.2fx)", l.Params["n"], fmtUs(lm), fmtUs(fm), lm/fm))
	}
	if len(limits) == 0 {
		cl.Verdict = results.NotEvaluated
		cl.Evidence = "needs lot's wake with --wakes including 0 (all at once) and futex's with 1, at the same N"
		return cl
	}
	cl.Judge(limits...)
	cl.Evidence = "rule: the median of the rounds' ratios (round i of each in the same pass); " + strings.Join(parts, "; ")
	return cl
}

// hashRates are the per-thread rates of impl's hash configurations with
// at most maxThreads threads, by thread count.
func hashRates(configs []*results.Config, impl string, maxThreads int) map[int]float64 {
	out := map[int]float64{}
	for _, c := range configs {
		if c.Impl == impl && c.Params["bench"] == BenchHash {
			if n := c.IntParam("n"); n <= maxThreads {
				out[n] = c.Summary[MOpsPerSec]
			}
		}
	}
	return out
}

func flatness(rates map[int]float64) (ratio float64, desc string) {
	var ns []int
	lo, hi := 0.0, 0.0
	for n, r := range rates {
		ns = append(ns, n)
		if lo == 0 || r < lo {
			lo = r
		}
		hi = max(hi, r)
	}
	slices.Sort(ns)
	var parts []string
	for _, n := range ns {
		parts = append(parts, fmt.Sprintf("%d thr %.2f M/s", n, rates[n]/1e6))
	}
	if hi > 0 {
		ratio = lo / hi
	}
	return ratio, strings.Join(parts, ", ")
}

// wake-lot-hash-flat: the parking lot's bucket table under perf's hash
// load scales with the threads, from 1 to NumCPU.
func claimHashFlat(configs []*results.Config, numCPU int) results.Claim {
	cl := results.Claim{ID: ClaimHashFlat,
		Statement: fmt.Sprintf("lot's hash table stays flat from 1 to NumCPU threads under perf's hash load (Park whose validate fails at once, over 1024 keys per thread): the slowest per-thread rate at least %.1f of the fastest", HashFlatMin)}
	lr := hashRates(configs, "lot", numCPU)
	_, one := lr[1]
	_, all := lr[numCPU]
	if !one || !all || numCPU < 2 {
		cl.Verdict = results.NotEvaluated
		cl.Evidence = fmt.Sprintf("needs lot's hash bench at 1 and at NumCPU (%d) threads", numCPU)
		return cl
	}
	ratio, desc := flatness(lr)
	// Round by round (the thread counts' round r ran in the same pass):
	// the flatness of each round, against the limit.
	var lots []*results.Config
	for _, c := range configs {
		if c.Impl == "lot" && c.Params["bench"] == BenchHash && c.IntParam("n") <= numCPU {
			lots = append(lots, c)
		}
	}
	var rounds []float64
	for r := 0; ; r++ {
		per := map[int]float64{}
		for _, c := range lots {
			if v := results.RoundValues(c, MOpsPerSec); r < len(v) && len(v) == len(c.Rounds) {
				per[c.IntParam("n")] = v[r]
			}
		}
		if len(per) != len(lots) {
			break
		}
		f, _ := flatness(per)
		rounds = append(rounds, f)
	}
	if len(rounds) == 0 {
		rounds = []float64{ratio}
	}
	cl.Judge(results.Limit{Figure: "lot slowest/fastest per-thread rate", Rounds: rounds, Limit: HashFlatMin, Unit: "x"})
	cl.Evidence = fmt.Sprintf("rule: the median over rounds of each round's slowest/fastest; lot: %s (slowest/fastest %.2f)", desc, ratio)
	if kr := hashRates(configs, "futex", numCPU); len(kr) > 1 {
		kratio, kdesc := flatness(kr)
		cl.Evidence += fmt.Sprintf("; the kernel's (futex): %s (%.2f)", kdesc, kratio)
	}
	return cl
}

// wake-condvar-448: parking_lot issue #448's gap.
func claim448(configs []*results.Config) results.Claim {
	cl := results.Claim{ID: ClaimCondvar448,
		Statement: fmt.Sprintf("parking_lot issue #448: one producer and one consumer over a bounded queue with notify_one per item run several times slower on parking_lot's Condvar than on std's (34.0 s against 6.3 s there, 5.4x); here: std's items/s at least %.0fx lot's", Gap448)}
	var lotC, stdC *results.Config
	var others []string
	for _, c := range configs {
		if c.Params["bench"] != BenchCondvar {
			continue
		}
		switch c.Impl {
		case "lot":
			lotC = c
		case "std":
			stdC = c
		default:
			others = append(others, fmt.Sprintf("%s %.0f k items/s, %.2f switches/item", c.Impl, c.Summary[MItemsPerSec]/1e3, c.Summary[MCswPerItem]))
		}
	}
	if lotC == nil || stdC == nil {
		cl.Verdict = results.NotEvaluated
		cl.Evidence = "needs the condvar bench of lot and std"
		return cl
	}
	l, s := lotC.Summary[MItemsPerSec], stdC.Summary[MItemsPerSec]
	gap := 0.0
	if l > 0 {
		gap = s / l
	}
	cl.Judge(results.Limit{Figure: "std/lot items/s", Rounds: results.RoundRatios(stdC, lotC, MItemsPerSec), Limit: Gap448, Unit: "x"})
	cl.Evidence = fmt.Sprintf("rule: the median of the rounds' ratios; std %.0f k items/s (%.2f switches/item) vs lot %.0f k items/s (%.2f switches/item): std/lot %.2fx",
		s/1e3, stdC.Summary[MCswPerItem], l/1e3, lotC.Summary[MCswPerItem], gap)
	if len(others) > 0 {
		cl.Evidence += "; " + strings.Join(others, "; ")
	}
	return cl
}
