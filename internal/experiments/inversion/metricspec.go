package inversion

import "github.com/parkbench/parkbench/internal/results"

// Metrics describes inversion's figures (results.MetricSpec): high's wait
// for the lock.
var Metrics = []results.MetricSpec{
	{Key: results.MMin, Header: "min wait", Unit: results.UnitMicros, Better: results.Lower},
	{Key: results.MMedian, Header: "median wait", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true,
		Benchstat: "wait-ns/op",
		Plot:      &results.PlotSpec{Kind: results.PlotPercentile, Title: "priority inversion: high's wait for the lock by percentile", Axis: "wait (µs)"}},
	{Key: results.MP99, Header: "p99 wait", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "p99-wait-ns/op"},
	{Key: results.MMax, Header: "max wait", Unit: results.UnitMicros, Better: results.Lower, Benchstat: "max-wait-ns/op"},
	{Key: MHeld, Header: "held", Unit: results.UnitMicros, Better: results.Lower},
	{Key: MCritical, Header: "cs", Unit: results.UnitMicros, Better: results.Lower},
	{Key: MMediumSwitched, Header: "med switched", Better: results.Lower},
	{Key: MSteal, Header: "steal", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
}
