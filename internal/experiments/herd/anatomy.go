package herd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/claim"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ktrace"
	"github.com/parkbench/parkbench/internal/results"
)

// --anatomy (docs/anatomy.md, "herd"): every repeat of a thread
// implementation is traced from right before the notify to the last
// release, sched_switch only, filtered in the kernel to the waiters' TIDs
// (they are known once every waiter is seen asleep, which is when the
// events are opened). The count per notify is read from the trace
// (anatomy.Trace.Herd): the waiters switched in after the notify that
// slept again before they held the mutex. The rings are read after the
// last release; no reader runs inside the window. The repeat's timings
// carry the tracing's cost (a record per switch): the result says so.

// herdTrace is one repeat's trace.
type herdTrace struct {
	sess   *ktrace.Session
	tids   []int32
	events []ktrace.Event
	lost   uint64
}

// startTrace opens and enables sched_switch for tids on every online CPU
// (the waiters may be unpinned). On error nothing stays open.
func startTrace(tids []int) (*herdTrace, error) {
	// About a dozen switches per waiter (its own and the idle task's
	// around it), ~100 bytes a record: 64 KiB per waiter, at least 1 MiB.
	size := min(max(len(tids)<<16, 1<<20), 64<<20)
	sess, err := ktrace.Open(ktrace.Options{TIDs: tids, Kinds: []ktrace.Kind{ktrace.Switch}, BytesPerCPU: size})
	if err != nil {
		if ktrace.IsUnavailable(err) {
			return nil, driver.Bad("Anatomy", "%v", err)
		}
		return nil, err
	}
	t := &herdTrace{sess: sess}
	for _, id := range tids {
		t.tids = append(t.tids, int32(id))
	}
	if err := sess.Enable(); err != nil {
		sess.Close()
		return nil, err
	}
	return t, nil
}

// stop disables the events, reads the rings and closes them; safe to call
// twice and on nil.
func (t *herdTrace) stop() {
	if t == nil || t.sess == nil {
		return
	}
	t.sess.Disable()
	t.events = t.sess.Drain(t.events)
	t.lost = t.sess.Lost()
	t.sess.Close()
	t.sess = nil
}

// count joins the trace with the repeat's clock readings.
func (t *herdTrace) count(t0 int64, acq []int64) anatomy.HerdCount {
	ws := make([]anatomy.HerdWaiter, len(t.tids))
	for i, id := range t.tids {
		ws[i] = anatomy.HerdWaiter{TID: id, Acq: acq[i]}
	}
	return anatomy.Index(t.events, t.tids).Herd(t0, ws)
}

// Claim the herd's trace decides (--anatomy only).
const ClaimTraceResleep = "E6-trace-resleep"

const stmtTraceResleep = "with a broadcast notify_all (futex-broadcast: std's; pthread: glibc's) woken waiters go back to sleep on the mutex " +
	"before they hold it; with parking_lot's requeue (lot) none does (medians over repeats): observed in the trace (sched_switch), not inferred from counts"

// TraceMinN: the claim is judged at N >= ClaimMinN, as the other herd
// claims: with a few waiters the order in which two CPUs run them decides
// whether any finds the mutex taken.
const TraceMinN = ClaimMinN

var (
	// lot-wakeall broadcasts too, but its waiters reach lot's mutex,
	// which yields (parking_lot's SpinWait) before it parks: its herd is
	// mostly runnable switch-outs, listed in the evidence, not judged.
	broadcastImpls = []string{"futex-broadcast", "pthread"}
	requeueImpls   = []string{"lot"}
)

// TraceClaims evaluates ClaimTraceResleep on notify-all configurations at
// N >= TraceMinN whose repeats were traced. Rule: for each broadcast
// configuration with the mutex held at the notify (the study's E6), the
// median over repeats of waiters that slept again is at least 1; for each
// lot configuration it is 0 (a median, as every herd claim: one repeat's
// stray sleep on a loaded machine, a preempted thread's way back, shows in
// the rounds, not the verdict). A broadcast with the mutex released is
// listed, not judged: its woken waiters find the mutex free whenever they
// run one after another (one CPU free for them). A repeat where the trace
// placed fewer than half the waiters is left out of the figure. Judged
// only with both a broadcast and a requeue configuration traced.
func TraceClaims(configs []*results.Config) []results.Claim {
	return []results.Claim{claim.Evaluate(traceRule, configs)}
}

var traceRule = claim.Rule{ID: ClaimTraceResleep, Statement: stmtTraceResleep,
	Needs: fmt.Sprintf("needs a traced broadcast (%s) and a traced requeue (%s) configuration at N >= %d with notify-all (e.g. parkbench herd --impl=lot,futex-broadcast --waiters=16 --anatomy)",
		strings.Join(broadcastImpls, " or "), strings.Join(requeueImpls, ", "), TraceMinN),
	How: "per repeat, the waiters switched in after the notify that switched out asleep (S/D) before holding the mutex",
	Select: func(c *results.Config) bool {
		return c.Params["notify"] == ModeAll && c.Params["participants"] != driver.Goroutines && c.IntParam("n") >= TraceMinN
	},
	Figures: func(cs []*results.Config) (out []claim.Figure) {
		kinds := map[bool]bool{}
		for _, c := range cs {
			var slept, runnable []float64
			for _, r := range c.Rounds {
				if tr, ok := r.Metrics[anatomy.MHerdTraced]; ok && 2*tr >= float64(c.IntParam("n")) {
					slept = append(slept, r.Metrics[anatomy.MHerdSleptAgain])
					runnable = append(runnable, r.Metrics[anatomy.MHerdRunnable])
				}
			}
			bc, rq := slices.Contains(broadcastImpls, c.Impl), slices.Contains(requeueImpls, c.Impl)
			if len(slept) == 0 || !bc && !rq {
				continue
			}
			kind := map[bool]string{true: "broadcast", false: "requeue"}[bc]
			f := claim.Fig(fmt.Sprintf("%s (%s) waiters of %d that slept again", c.Key, kind, c.IntParam("n")), slept, c).With("runnable switch-outs, yield or preemption: " + fmtCounts(runnable))
			switch {
			case bc && c.Params["lock_held"] != "true":
				f = f.Skip("mutex released at the notify: listed, not judged")
			case bc:
				f, kinds[true] = f.AtLeast(1), true
			default:
				f, kinds[false] = f.AtMost(0), true
			}
			out = append(out, f)
		}
		for i := range out {
			if len(kinds) < 2 {
				out[i] = out[i].Skip("needs both a broadcast and a requeue traced")
			}
		}
		return out
	}}

func fmtCount(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }

func fmtCounts(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmtCount(x)
	}
	return strings.Join(s, ", ")
}
