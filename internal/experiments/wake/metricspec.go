package wake

import "github.com/parkbench/parkbench/internal/results"

// The C floor: perf's loops in C threads (c-futex) at the same bench, N
// and per-call count; the C condvars (pthread) are C themselves.
var wakerFloors = map[string]string{"c-futex": "", "pthread": ""}

// Metrics describes wake's figures (results.MetricSpec), in table order.
// The waker's mean is perf's figure (the report's main one, and what
// --format=perf prints); its median over the runs is the gate's headline
// (a run that catches the woken thread on the waker's CPU is several
// times cheaper than one that sends an IPI to an idle one, and the mean of
// ten such runs swings with the mix), judged as a ratio to c-futex in the
// same run. The hash and producer/consumer figures are judged on their
// own.
var Metrics = []results.MetricSpec{
	{Key: MWakerMean, Header: "waker mean", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true,
		Benchstat: "ns/op", Floor: "c-futex", FloorByImpl: wakerFloors,
		Plot: &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "the waker's time to wake (or requeue) N waiters", Axis: "waker time, mean over runs (µs)"}},
	{Key: MWakerSEM, Header: "(+-)%", Better: results.Lower},
	{Key: MWakerMedian, Header: "waker median", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Headline: true,
		Benchstat: "median-ns/op", Floor: "c-futex", FloorByImpl: wakerFloors},
	{Key: MWakerP99, Header: "waker p99", Unit: results.UnitMicros, Better: results.Lower, Benchstat: "p99-ns/op"},
	{Key: MPerThread, Header: "per waiter", Unit: results.UnitNanos, Better: results.Lower,
		Plot: &results.PlotSpec{Kind: results.PlotParam, Param: "n", Title: "the waker's cost per waiter", Axis: "waker time / N (ns)"}},
	{Key: MWoken, Header: "woken", Better: results.Higher},
	{Key: MCallP99, Header: "call p99", Unit: results.UnitMicros, Better: results.Lower},
	{Key: MCalls, Header: "calls", Better: results.Lower, Diagnostic: true},
	{Key: MCallMedian, Header: "call median", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
	{Key: MOpsPerSec, Header: "ops/s/thread", Better: results.Higher, Judged: true, Benchstat: "ops/s"},
	{Key: MOpsSEM, Header: "ops (+-)%", Better: results.Lower, Diagnostic: true},
	{Key: MOpsTotal, Header: "ops/s total", Better: results.Higher, Diagnostic: true},
	{Key: MNsPerOp, Header: "ns/op", Unit: results.UnitNanos, Better: results.Lower, Diagnostic: true},
	{Key: MUnexpected, Header: "unexpected", Better: results.Lower, Diagnostic: true},
	{Key: MItemsPerSec, Header: "items/s", Better: results.Higher, Judged: true, Benchstat: "items/s", Floor: "pthread", FloorByImpl: map[string]string{"pthread": ""}},
	{Key: MCswPerItem, Header: "csw/item", Better: results.Lower},
	{Key: MNsPerItem, Header: "ns/item", Unit: results.UnitNanos, Better: results.Lower, Diagnostic: true},
	{Key: MWaitPerItem, Header: "waits/item", Better: results.Lower, Diagnostic: true},
}
