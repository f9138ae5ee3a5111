package herd

import "github.com/parkbench/parkbench/internal/results"

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
