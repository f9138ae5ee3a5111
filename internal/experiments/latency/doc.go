// Package latency is the study's E12 wake latency (`parkbench latency`:
// PlanLatency / RunLatency in run.go); its reverse check is package
// selfwake, which measures the same implementations (impls.go, export.go).
// The options, defaults and validation are in options.go, the claims in
// claims.go and sched_claims.go (the anatomy's in internal/anatomy). The
// method in full is in docs/experiments.md ("latency", "selfwake").
//
// Latency. Two participants ping-pong (internal/pingpong): the waker stamps
// the monotonic time into the other side's slot, sets its flag, wakes it
// and waits; the woken side records now - stamp into a pre-allocated buffer
// and wakes back. Both directions are pooled into one HDR histogram per round
// (1 ns..10 s, 3 significant figures). Per round also: waits that did not
// sleep (the flag was already set at the first look, or none of the wait's
// park calls blocked, by the parker's WaitCounter), context switches per
// round trip (RUSAGE_SELF around the round; each participant's
// RUSAGE_THREAD read inside it), heap allocations per round trip, GC cycles;
// unpinned, the fraction of sampled wakes with both sides on one CPU. The
// summary is the median over rounds of each metric.
//
// Implementations: every parker backend, lot, the Go twins of the C
// reference (go-futex, go-spin: the C loops' exact protocol in Go, no
// parker), and the C reference itself (internal/cref). Threads are kept
// for every round of one configuration and fresh for each configuration.
// Before each configuration the floor is probed (probe.Measure) and a
// foreign-load window opened. The runtime is held by runenv for the whole
// run. With Interleave the rounds run round-robin across configurations.
package latency
