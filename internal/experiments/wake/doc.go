// Package wake measures the waker's side, perf bench futex's method
// (`parkbench wake`: Plan / Run in run.go): how long a wake, a parallel
// wake, a requeue and a hash-bucket lookup take per call, every
// implementation side by side, and parking_lot #448's condvar
// producer/consumer. The options are in options.go, the implementations in
// impls.go (catalog.go, implgroups.go), the claims in claims.go, the metric
// specs in metricspec.go; perf.go renders perf bench futex's own output.
// The method in full is in docs/experiments.md ("wake").
package wake
