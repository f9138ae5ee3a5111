// Package selfwake is the reverse check of the study's E12 (`parkbench
// selfwake`: PlanSelfwake / RunSelfwake in run.go), over latency's
// implementations plus one trivial syscall per pair (impls.go). Options in
// options.go, metric specs in metricspec.go, claims in claims.go; the
// method in docs/experiments.md ("selfwake").
//
// A thread wakes itself, then waits; the wait must return at
// once. Timed per sample of Pairs pairs. If the microseconds of the latency
// experiment came from API overhead rather than from sleeping and waking,
// they would show up here; they do not (the study: ~10 ns).
package selfwake
