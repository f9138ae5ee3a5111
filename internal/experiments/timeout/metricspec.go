package timeout

import "github.com/parkbench/parkbench/internal/results"

// floor is the nanosleep row: the kernel's own timed sleep, the floor of
// every other row's lateness.
const floor = "nanosleep"

// Metrics describes timeout's figures (results.MetricSpec): lateness past
// the deadline. The median and p99 are judged; none is a gate headline (a
// timed wait's lateness is the timer's, which the parkers do not change).
var Metrics = []results.MetricSpec{
	{Key: results.MMin, Header: "min late", Unit: results.UnitMicros, Better: results.Lower},
	{Key: results.MMedian, Header: "median late", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true,
		Benchstat: "late-ns/op", Floor: floor,
		Plot: &results.PlotSpec{Kind: results.PlotPercentile, Title: "timed park: lateness past the deadline by percentile", Axis: "late (µs)"}},
	{Key: results.MP99, Header: "p99 late", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "p99-late-ns/op", Floor: floor},
	{Key: results.MMax, Header: "max late", Unit: results.UnitMicros, Better: results.Lower, Benchstat: "max-late-ns/op"},
	{Key: MEarly, Header: "early", Better: results.Lower},
	{Key: MSlack, Header: "slack ns", Better: results.Lower},
}
