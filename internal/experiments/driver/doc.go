// Package driver holds what every parkbench experiment shares, once:
// progress reporting, the option-error type, the placements and their
// pinning, the switch of the parking lot's parker, the latency histogram and
// the statistics over rounds. It imports no experiment; every experiment
// package imports it (cmd -> experiments -> experiments/<name> -> driver).
//
// # Adding an experiment
//
// An experiment is one package internal/experiments/<name> (see e12, herd,
// timeout, stacks) that exports the same shape:
//
//	type Options struct{ ... }            // every knob, with doc comments
//	func DefaultOptions() Options          // the study's method
//	func QuickOptions() Options            // a short run (--quick)
//	func (o Options) Validate() error      // *OptionError naming an Options field
//	func Impls() []driver.ImplInfo         // every accepted --impl name, with why not here
//	func Run(ctx context.Context, o Options, p driver.Progress) (*results.Experiment, error)
//	func Claims(...) []results.Claim       // the claims, from the numbers just measured
//
// and a doc.go with its method. Run validates first (the same Validate), never
// prints, checks ctx between configurations (Interrupted) and returns
// ctx.Err() when cancelled, and reports progress through p (nil is fine).
// Bad input is an *OptionError built with Bad(field, ...): Field is the Go
// name of the Options field at fault ("Impls", "LotParker"), never a flag;
// the command maps fields back to its flags (cmd/parkbench/options.go).
// Register the experiment in internal/experiments/registry.go so that
// `parkbench list` shows it and its implementations, and give its command a
// flag table in cmd/parkbench.
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
// and Why it is unavailable here ("" when it runs).
type ImplInfo struct {
	Name, Kind, Summary, Why string
}
