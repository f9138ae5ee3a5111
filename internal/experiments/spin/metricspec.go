package spin

import "github.com/parkbench/parkbench/internal/results"

// Metric names of the spin experiment (beside results.MMedian and the
// other latency figures, which are the wake latency: signal -> the waiter
// sees it).
const (
	// MCPU is the waiter's CPU time per wait (median over the waits; ns):
	// CLOCK_THREAD_CPUTIME_ID, user and kernel, less the clocks' own cost.
	MCPU     = "cpu_per_wait_ns"
	MCPUMean = "cpu_mean_ns"
	// MLate is the median of the waiter's start + gap -> it resumed.
	MLate = "late_median_ns"
	// MSpun is the share of waits that ended while spinning (no voluntary
	// context switch in the wait: the waiter never slept).
	MSpun = "spun_share"
	// MCsw is the waiter's context switches per wait (RUSAGE_THREAD).
	MCsw = "ctxsw_per_wait"
	// MCost is the median latency plus the median CPU per wait: the total
	// cost the competitive rule is about (Karlin et al. 1991).
	MCost = "cost_ns"
	// MLateCost is MLate plus the median CPU per wait: the cost on one CPU,
	// where a spinning waiter also delays the signal.
	MLateCost = "late_cost_ns"
	// MBudget is the row's spin budget (ns): a fixed row's, the
	// competitive rule's (the round's park + wake cost), a library's spin
	// phase timed alone (median); absent for unbounded.
	MBudget = "budget_ns"
	// MStale counts futex returns that found the word still parked (a
	// stale wake of the iteration before; never a lost one).
	MStale = "stale_wakes"
	// MSleptLat and MSleptCPU are the ping-pong's latency and CPU per wait
	// over the waits that slept: the park + wake cost is their sum.
	MSleptLat = "slept_latency_ns"
	MSleptCPU = "slept_cpu_ns"
	// MAdaptiveSpins is glibc's __spins at the end of a round.
	MAdaptiveSpins = "adaptive_spins"
)

// Metrics describes spin's figures (results.MetricSpec): the wake latency
// (the main figure, drawn against the CPU per wait), its p99, the CPU per
// wait, the share that never slept, switches, the budget and how late the
// waiter resumed. Latency, p99 and CPU are judged; none is a gate
// headline (the gate's profile is latency's and wake's).
var Metrics = []results.MetricSpec{
	{Key: results.MMedian, Header: "latency", Unit: results.UnitMicros, Better: results.Lower, Main: true, Judged: true, Benchstat: "ns/op",
		Plot: &results.PlotSpec{Kind: results.PlotTradeoff, X: MCPU, Param: "gap", Title: "wake latency against the waiter's CPU per wait, one line per gap",
			Axis: "median wake latency (µs)"}},
	{Key: results.MP99, Header: "p99", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "p99-ns/op"},
	{Key: MCPU, Header: "cpu/wait", Unit: results.UnitMicros, Better: results.Lower, Judged: true, Benchstat: "cpu-ns/op"},
	{Key: MSpun, Header: "spun", Better: results.Higher},
	{Key: MCsw, Header: "csw/wait", Better: results.Lower, Benchstat: "ctxsw/op"},
	{Key: MBudget, Header: "budget", Unit: results.UnitMicros, Better: results.Lower},
	{Key: MLate, Header: "late", Unit: results.UnitMicros, Better: results.Lower, Benchstat: "late-ns/op"},
	{Key: MCost, Header: "cost", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
	{Key: MLateCost, Header: "late+cpu", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
	{Key: results.MMax, Header: "max", Unit: results.UnitMicros, Better: results.Lower, Diagnostic: true},
	{Key: MStale, Header: "stale", Better: results.Lower, Diagnostic: true},
}
