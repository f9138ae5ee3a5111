// Package experiments is the top of parkbench's experiments: the suite
// (what `parkbench run` measures: SuiteParts, PlanSuite) and the registry
// of experiments that `parkbench list` shows (Registry). Each experiment is
// its own package on the shared driver (internal/experiments/driver, whose
// doc says how to add one); the registry lists them all, and the help
// texts that list experiments are generated from it and from SuiteParts.
//
// Experiments return data (*results.Experiment) and never print: commands
// render. The method of each is in its package doc and in docs/experiments.md.
package experiments
