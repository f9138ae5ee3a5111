// Package gate is parkbench's A/B regression gate (`parkbench ab`): two
// parkbench binaries, base and new, measured alternately on one machine,
// and each headline figure judged same, slower, faster or unknown.
//
// The order of a gate run:
//
//	process.go  ProcessSource.Prepare: both binaries identified (--version),
//	            one warm-up trial each of the profile's parts (Part,
//	            DefaultProfile, Profiles); the rows to judge are the new
//	            binary's headline metrics (results.MetricSpec.Headline), as
//	            ratios to their floor configuration in the same trial; rows
//	            the base cannot measure are dropped and listed (Dropped).
//	run.go      Run: Options.Trials a side in ABBA blocks, each trial its
//	            own process launch (Source.Trial), then more trials for the
//	            rows still unknown, up to Options.MaxTrials.
//	judge.go    the verdicts (Same, Slower, Faster, Unknown) at each look,
//	            at the look's share of Options.Alpha, Holm-adjusted over
//	            the rows and the geomean.
//	stats.go    the tests behind them: the Mann-Whitney U test as x/perf's
//	            benchstat runs it, a rank test of spread, the bootstrap
//	            interval of the ratio of medians, Holm's adjustment.
//	render.go   the Report (--out, --format=json) and its text and
//	            markdown views.
//
// Only Slower fails the gate. The method, its error rates as measured on
// this project's CI machine, and why each default is what it is are in
// docs/gate.md.
package gate
