package latency

import (
	"github.com/parkbench/parkbench/internal/probe"
	"github.com/parkbench/parkbench/internal/results"
)

// Metric names of E12 beyond the shared ones in package results.
const (
	// MNoSleepFraction is no_sleep_waits / waits (2 per round trip).
	MNoSleepFraction = "no_sleep_fraction"
	// MMedianSlept and MP99Slept are the median and p99 of the waits that
	// slept only: a wait that found its flag already set records a sample
	// too, and where many do (a VM whose host deschedules a vCPU after a
	// wake: 3-48% of waits on the 2-vCPU KVM guest), the overall median
	// moves with that share. Absent when no wait slept.
	MMedianSlept = "median_slept_ns"
	MP99Slept    = "p99_slept_ns"
	// MMinSlept is the fastest wait that slept: the table's "min slept"
	// beside the overall min, which a wait that found its reply already
	// set makes a busy-wait's figure (0.02 µs cross-core, below c-spin's
	// 0.05 µs, on the AMD EPYC guest).
	MMinSlept = "min_slept_ns"
	// MWakeMedian is the wake, the figure the table shows first as its
	// "median": for a mechanism that sleeps, the median of the waits that
	// slept (MMedianSlept), with the share that did not sleep
	// (MNoSleepFraction) beside it; for one that busy-waits, the median of
	// all its waits (results.MMedian). The all-waits median stays under
	// its own key, in --wide and in the JSON: where a share of waits
	// found the reply already set it mixes the two regimes (c-futex
	// cross-core on the AMD EPYC guest: 0.71 µs over every wait, 80% of
	// them not slept, against 10.8 µs for a wake). Absent from a round of
	// a sleeping mechanism in which no wait slept.
	MWakeMedian = "wake_median_ns"
	// MParkImmediate is the parkers' own count (WaitCounter, or the lot's
	// ParkInvalid returns) of park calls that returned without blocking,
	// also those inside a wait that then slept (a stale unpark).
	MParkImmediate = "park_immediate"
	// MCtxSwOther is ctxsw_self_per_rt - ctxsw_thread_per_rt: switches of
	// the process's other threads per round trip. For the Go waits through
	// Syscall this is the runtime at work (sysmon retaking the P of a
	// participant blocked in FUTEX_WAIT, an M taking it over); near 0 for
	// the C reference and for RawSyscall waits.
	MCtxSwOther = "ctxsw_other_per_rt"
	// MSameCPU is the fraction of sampled wakes (every 16th) where waker
	// and woken ran on one CPU; unpinned configurations only. The
	// summary's is the mean over rounds (all sampled wakes), not their
	// median: the scheduler may move the pair between rounds.
	MSameCPU = "same_cpu_fraction"
	// MAllocsPerRT is heap allocations per measured round trip (Go
	// implementations; runtime.MemStats.Mallocs delta around the round).
	MAllocsPerRT = "allocs_per_rt"
	// MGCCycles counts GC cycles that ran inside the round (should be 0).
	MGCCycles = "gc_cycles"
)

// measureProbe is probe.Measure; tests that only check the structure of a
// result replace it with a cheap stand-in, since the real probe (a spin
// ping-pong and 60 000 syscalls) dominates a tiny run under -race.
var measureProbe = probe.Measure

// latencyTimeFigures are latency's figures that are measured intervals
// (ns): driver.RefuseBelowResolution refuses those below the clock's step.
var latencyTimeFigures = []string{results.MMin, results.MMedian, results.MP99, results.MP999, results.MMax, MMinSlept, MMedianSlept, MP99Slept}
