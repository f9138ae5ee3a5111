// Package inject is parkbench's slowdown injection, for measuring the
// regression gate's detection power (scripts/gate-eval.sh, docs/gate.md).
// The wake paths of the futex thread parker, the parking lot and Rust
// std's thread parker call inject.Wake: after the wake is published (the
// parker's word stored, the thread dequeued) and before the wake itself
// (FUTEX_WAKE, the handle's Unpark), once per thread woken (the lot: in
// UnparkOne, and per handle where one call wakes many: UnparkAll,
// UnparkFilter, UnparkRequeue), so a delay there adds to every wake of a
// sleeping thread, as a slower wake path would.
//
// In a normal build Wake is an empty inlined function. Built with -tags
// parkinject, it busy-waits for the site's delay, read once at start from
// PARKBENCH_INJECT ("futex=3us,lot=0,std=2.5us"; unset or 0: no delay),
// and Describe says so, so that every result such a build writes carries a
// warning (inject_on.go).
package inject

// Site is one injection point.
type Site int

// The sites.
const (
	Futex Site = iota // parkers futexUnpark.Unpark, before FUTEX_WAKE
	Lot               // lot unparkOneFound and wakeHandles, before each handle's Unpark
	Std               // parkers stdParker.Unpark, before FUTEX_WAKE of a PARKED owner
	numSites
)

var siteNames = [numSites]string{"futex", "lot", "std"}

func (s Site) String() string { return siteNames[s] }
