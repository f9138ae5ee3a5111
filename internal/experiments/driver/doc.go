// Package driver holds what every parkbench experiment shares, once:
// progress reporting, the option-error type and the count checks, the
// implementation catalogue (Catalog: one meaning of "all", one message for
// an unknown name), the placements and their pinning, the switch of the
// parking lot's parker, the foreign-CPU warning, the latency histogram and
// the summary of rounds (MedianOfRounds, over internal/stats). It imports no
// experiment; every experiment package imports it (cmd -> experiments ->
// experiments/<name> -> driver).
//
// # Adding an experiment
//
// An experiment is one package internal/experiments/<name> (every one is
// in internal/experiments/registry.go), cut alike:
//
//	doc.go      the package doc: what it measures and how, naming every
//	            experiment the package holds (latency and lock hold two)
//	metricspec.go  its metric description (results.MetricSpec): how report,
//	            compare, plot, benchstat and the gate read its figures
//	options.go  type Options struct{ ... }       // every knob, with doc comments;
//	            // a flag:"name" help:"usage" tag on each the command takes
//	            // (internal/cli/flags.go) and an opt:"key" tag on each the
//	            // result echoes (Echo)
//	            func (Options) FlagVars() map[string]any // {Name} in help (limits; {ImplNames} is the command's)
//	            func DefaultOptions() Options     // the study's method
//	            func QuickOptions() Options       // a short run (--quick)
//	            func (o Options) Validate() error // Check(plan(o))
//	            func plan(o Options) (*xPlan, error) // validates once, resolves names
//	impls.go    a Catalog of its implementations; Impls() []ImplInfo, ImplNames()
//	run.go      func Plan(o Options) (Plan, error) // Prepared(plan(o))
//	            func Run(ctx, o, progress) (*results.Experiment, error) // RunPlanned
//	            func (p *xPlan) Run(ctx, progress) // the measurement
//	claims.go   func Claims(...) []results.Claim  // from the numbers just measured
//
// plan validates every option and resolves every name once (through
// Catalog.Resolve and LotParker), before anything is measured: a suite or
// a command plans all it will run first and never validates twice. Run
// never prints, checks ctx between configurations (Interrupted) and returns
// ctx.Err() when cancelled, reports progress through p (nil is fine), puts
// ForeignWarning on a configuration whose foreign-load window was busy.
// Bad input is an *OptionError built with Bad(field, ...) or the Check*
// helpers: Field is the Go name of the Options field at fault ("Impls",
// "LotParker"), never a flag. The command maps fields back to its flags
// from the flag tags (internal/cli/flags.go).
//
// Then: an entry in internal/experiments/registry.go (so that `parkbench
// list` shows it and its implementations, and the help of plot and compare
// its figures; Flag when its names are not given by --impl), its command
// in internal/cli/experiments.go (a constructor naming its
// DefaultOptions/QuickOptions/Plan; its flags come from the tags) with its
// texts beside it in internal/cli/help/<name>.txt (prose: the summary, the
// long help, the examples); and, if it joins `parkbench run`, a part in internal/experiments/suite.go (SuiteParts, SuiteOptions,
// SetRounds), from which run's help is generated. Nothing else changes:
// the flags' defaults, --quick and the error-to-flag map come from the
// tags; a format of its own (wake's perf) is a renderer in its package
// that its command offers.
package driver

import "context"

// Progress is told how far an experiment is; label names the configuration
// running. A nil Progress is valid and reports nothing.
type Progress func(done, total int, label string)

// Report calls p if it is set.
func (p Progress) Report(done, total int, label string) {
	if p != nil {
		p(done, total, label)
	}
}

// Stage prefixes every label with name (the suite runs several
// experiments under one progress line). Nil stays nil.
func (p Progress) Stage(name string) Progress {
	if p == nil {
		return nil
	}
	return func(done, total int, label string) { p(done, total, name+" "+label) }
}

// Interrupted reports whether ctx has been cancelled (SIGINT / SIGTERM).
func Interrupted(ctx context.Context) bool { return ctx.Err() != nil }

// ImplInfo describes one implementation an experiment accepts: its name
// (what --impl takes), its kind (results.Config.Kind), a one-line summary,
// and Why it is unavailable here ("" when it runs). GoroutinesOnly marks
// one that runs only with --participants=goroutines (latency's semaphore
// rows): listed, and its name reserved, like every other.
type ImplInfo struct {
	Name, Kind, Summary, Why string
	GoroutinesOnly           bool
}
