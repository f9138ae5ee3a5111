package herd

import "github.com/parkbench/parkbench/internal/results"

// Herd metric names beyond the shared ones.
const (
	mCswExtra    = "ctxsw_participants_extra" // participants' switches beyond one park each
	mCswInvol    = "ctxsw_participants_invol" // the involuntary (preempted) part of ctxsw_participants
	mCswNotifier = "ctxsw_notifier"
	// The phases of ctxsw_participants (Linux): before the notify (the
	// park every waiter pays, plus what its set-up cost), from the notify
	// to holding the mutex (re-parks, yields, preemptions on the way to
	// the lock), and the hold and release (a waiter preempted by the next
	// one it woke). Each with its involuntary part.
	mCswSetup        = "ctxsw_parts_before_notify"
	mCswWake         = "ctxsw_parts_to_lock"
	mCswRelease      = "ctxsw_parts_release"
	mCswSetupInvol   = "ctxsw_parts_before_notify_invol"
	mCswWakeInvol    = "ctxsw_parts_to_lock_invol"
	mCswReleaseInvol = "ctxsw_parts_release_invol"
	mHandoff         = "handoff_ns"     // median gap between one release and the next hold
	mHandoffMax      = "handoff_max_ns" // largest such gap
	mHandoffMean     = "handoff_mean_ns"
	// mSerial is total / (N x hold + (N-1) x mean handoff + first) of
	// one repeat: 1 when nothing but the nominal holds and the measured
	// handoffs make up the total; above 1 by the holds' stretch (a waiter
	// preempted while holding).
	mSerial      = "serial_ratio"
	mHoldMean    = "hold_mean_ns" // mean measured hold
	mSpurious    = "spurious_wakeups"
	mNotifierCPU = "notifier_cpu"
	mFirstCPU    = "first_cpu"
	mFirstIsCPU  = "first_same_cpu" // 1 when the first waiter ran on the notifier's CPU
)

// floor is the C reference herd (glibc pthread_cond_broadcast, C threads):
// each Go configuration's figures are a ratio to it at the same N.
const floor = "pthread"

// Metrics describes herd's figures (results.MetricSpec), in table order:
// first waiter and total time are judged (against the C herd across
// machines) and pivoted by N; neither is a gate headline: the waiters are
// unpinned and a repeat is one notify, so a short trial's spread is wider
// than the changes the gate must catch.
var Metrics = []results.MetricSpec{
	{Key: results.MReturn, Header: "return", Better: results.Lower},
	{Key: results.MFirstNs, Header: "first", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "first-ns/op", Floor: floor,
		Pivot: &results.PivotSpec{Param: "n", Title: "notify -> first waiter holds the lock"},
		Plot:  &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "notify_all -> first waiter holds the lock", Axis: "first waiter (µs)"}},
	{Key: results.MTotalNs, Header: "total", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true, Benchstat: "total-ns/op", Floor: floor,
		Pivot: &results.PivotSpec{Param: "n", Title: "notify -> last release"},
		Plot:  &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "notify_all -> last waiter released", Axis: "total (µs)"}},
	{Key: results.MCtxSwProc, Header: "csw proc", Better: results.Lower, Benchstat: "ctxsw-proc/op"},
	{Key: results.MCtxSwParts, Header: "csw parts", Better: results.Lower, Benchstat: "ctxsw-participants/op"},
	{Key: results.MUnparked, Header: "unparked", Better: results.Lower},
	{Key: results.MRequeued, Header: "requeued", Better: results.Lower},
}

// minMaxMetrics are the metrics that get _min and _max summary variants.
var minMaxMetrics = []string{results.MFirstNs, results.MTotalNs, results.MCtxSwProc, results.MCtxSwParts, mHandoff}
