package selfwake

import (
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
)

// Metric names of selfwake beyond the shared ones in package results.
const (
	// MCtxSwPerPair is the participant's context switches per pair.
	MCtxSwPerPair = "ctxsw_thread_per_pair"
	// MAllocsPerPair is heap allocations per pair.
	MAllocsPerPair = "allocs_per_pair"
	// MSyscallNs is the probe's cost of one trivial syscall (context for
	// the figures).
	MSyscallNs = "syscall_ns"
	// MSleptWaits is c-futex's count of waits that slept.
	MSleptWaits = "slept_waits"
	// MHarnessNs is lot's harness floor: ns per pair of the same measured
	// loop with UnparkOne and Park replaced by functions of the same
	// signatures that return at once (the empty pair); MOverHarness is
	// lot's ns per pair less it.
	MHarnessNs   = "harness_ns"
	MOverHarness = "over_harness_ns"
)

// timeFigures are the figures that are measured intervals (ns per pair of
// a sample of Pairs pairs): driver.RefuseBelowResolution refuses those
// below the clock's step.
var timeFigures = []string{results.MNsPerPair, results.MMin, results.MP99, results.MMax}

// measureProbe is probe.Measure; tests that only check the structure of a
// result replace it with a cheap stand-in.
var measureProbe = probe.Measure
