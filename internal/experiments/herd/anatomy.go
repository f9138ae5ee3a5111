package herd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ktrace"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
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
// stray sleep on a loaded machine, a preempted thread's way back, is listed
// in the evidence, not the rule). A broadcast with the mutex
// released is listed, not judged: its woken waiters find the mutex free
// whenever they run one after another (one CPU free for them). A repeat
// where the trace placed fewer than half the waiters is not judged.
func TraceClaims(configs []*results.Config) []results.Claim {
	cl := results.Claim{ID: ClaimTraceResleep, Statement: stmtTraceResleep, Verdict: results.NotEvaluated}
	var ev, failing []string
	var nb, nr int
	for _, c := range configs {
		if c.Params["notify"] != ModeAll || c.Params["participants"] == driver.Goroutines {
			continue
		}
		n := 0
		fmt.Sscan(c.Params["n"], &n)
		if n < TraceMinN {
			continue
		}
		var slept, runnable []float64
		skipped := 0
		for _, r := range c.Rounds {
			tr, ok := r.Metrics[anatomy.MHerdTraced]
			if !ok {
				continue
			}
			if 2*tr < float64(n) {
				skipped++
				continue
			}
			slept = append(slept, r.Metrics[anatomy.MHerdSleptAgain])
			runnable = append(runnable, r.Metrics[anatomy.MHerdRunnable])
		}
		if len(slept) == 0 {
			if skipped > 0 {
				ev = append(ev, fmt.Sprintf("%s: not judged (the trace placed fewer than half the waiters in all %d repeats)", c.Key, skipped))
			}
			continue
		}
		s := slices.Clone(slept)
		slices.Sort(s)
		med := stats.NearestRank(s, 0.5)
		line := fmt.Sprintf("%s: %s of %d slept again per notify (repeats: %s; runnable switch-outs, yield or preemption: %s)",
			c.Key, fmtCount(med), n, fmtCounts(slept), fmtCounts(runnable))
		if skipped > 0 {
			line += fmt.Sprintf(", %d repeats not judged", skipped)
		}
		switch {
		case slices.Contains(broadcastImpls, c.Impl) && c.Params["lock_held"] != "true":
			line += " (mutex released at the notify: listed, not judged)"
		case slices.Contains(broadcastImpls, c.Impl):
			nb++
			if med < 1 {
				failing = append(failing, fmt.Sprintf("%s: broadcast, but a median %s waiters slept again", c.Key, fmtCount(med)))
			}
		case slices.Contains(requeueImpls, c.Impl):
			nr++
			if med > 0 {
				failing = append(failing, fmt.Sprintf("%s: requeue, but a median %s waiters slept again", c.Key, fmtCount(med)))
			}
		}
		ev = append(ev, line)
	}
	rule := fmt.Sprintf("rule: notify-all at N >= %d, per repeat the waiters switched in after the notify that switched out asleep (S/D) before holding the mutex; broadcast (%s) with the mutex held at the notify: median >= 1; requeue (%s): median 0",
		TraceMinN, strings.Join(broadcastImpls, ", "), strings.Join(requeueImpls, ", "))
	cl.Evidence = rule + "; " + strings.Join(ev, "; ")
	switch {
	case len(failing) > 0:
		cl.Verdict, cl.Why = results.DoesNotHold, strings.Join(failing, "; ")
	case nb == 0 || nr == 0:
		cl.Why = fmt.Sprintf("needs a traced broadcast (%s) and a traced requeue (%s) configuration at N >= %d with notify-all (e.g. parkbench herd --impl=lot,futex-broadcast --waiters=16 --anatomy)",
			strings.Join(broadcastImpls, " or "), strings.Join(requeueImpls, ", "), TraceMinN)
		if len(ev) == 0 {
			cl.Evidence = cl.Why
		}
	default:
		cl.Verdict = results.Holds
	}
	return []results.Claim{cl}
}

func fmtCount(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }

func fmtCounts(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmtCount(x)
	}
	return strings.Join(s, ", ")
}
