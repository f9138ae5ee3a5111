// Package lock is two experiments on a contended lock, parking_lot's
// benchmarks (benchmark/src/bin/mutex.rs and rwlock.rs) for every
// implementation side by side; docs/lock.md has the method.
//
// `parkbench lock` (Options, Plan / Run in run.go): N threads (goroutines
// locked to their OS threads, or C threads for the floor) start together
// and loop { lock; work-in; unlock; work-between } for a fixed time,
// exactly as mutex.rs's run_benchmark; from the same run come fairness
// (Jain's index, min/max ratio, sampled waits) and CPU cost (cores busy,
// CPU per acquisition). WebKit's LockFairnessTest (HoldSleep) and
// golang/go#13086's lockskew (Skew) are two more patterns of it.
//
// `parkbench rwlock` (RwOptions, PlanRw / RunRw in rwlock.go):
// writers and readers on one rwlock, as rwlock.rs; throughput and fairness
// per class.
//
// The files: options.go (both experiments' options, defaults and
// validation), impls.go (the implementations of each), run.go and rwlock.go
// (the runs), loop.go (the measured loops), claims.go.
package lock
