package selfwake

import "github.com/parkbench/parkbench/internal/results"

// Metrics describes selfwake's figures: ns per wake+wait pair,
// whose floor is the syscall row of the same run (one trivial syscall per
// pair, the least a kernel-side wake path pays).
var Metrics = []results.MetricSpec{
	{Key: results.MNsPerPair, Header: "ns/pair", Unit: results.UnitNanos, Better: results.Lower, Main: true, Judged: true,
		Benchstat: "ns/op", Floor: ImplSyscall},
	{Key: results.MNoSleep, Header: "no-sleep", Better: results.Lower, Diagnostic: true},
	// lot's row: its pair above the harness floor (the empty pair), and
	// the floor itself.
	{Key: MOverHarness, Header: "over harness", Unit: results.UnitNanos, Better: results.Lower},
	{Key: MHarnessNs, Header: "harness", Unit: results.UnitNanos, Better: results.Lower, Diagnostic: true},
}
