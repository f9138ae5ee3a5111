package driver

import (
	"context"

	"github.com/parkbench/parkbench/internal/results"
)

// Plan is an experiment whose options have been checked and resolved (the
// implementations, the placements, the lot's parker): calling it measures.
// Every experiment's Plan(Options) validates once and returns one; Run is
// Plan and then the call, and Validate is Plan without the call, so a
// suite or a command that plans first never validates twice.
type Plan func(ctx context.Context, progress Progress) (*results.Experiment, error)

// Prepared is an experiment's Plan from its own plan function, which
// returns its validated run p (or why o is bad): p.Run, unless ctx is
// already done when it is called (SIGINT before the run started), which
// returns ctx.Err() before p's setup (calibrations, probes) runs. Checks
// within a run stay the experiment's own.
func Prepared[P interface {
	Run(context.Context, Progress) (*results.Experiment, error)
}](p P, err error) (Plan, error) {
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, progress Progress) (*results.Experiment, error) {
		if Interrupted(ctx) {
			return nil, ctx.Err()
		}
		return p.Run(ctx, progress)
	}, nil
}

// Check is an experiment's Validate from its own plan function: the
// plan's error alone.
func Check[P any](_ P, err error) error { return err }

// Planned is an experiment's Plan and Run from its own plan function (as
// Prepared reads it): Plan validates o and returns the run it describes,
// measuring nothing yet; Run is Plan and, if o is valid, the call
// (RunPlanned).
func Planned[O any, P interface {
	Run(context.Context, Progress) (*results.Experiment, error)
}](plan func(O) (P, error)) (func(O) (Plan, error), func(context.Context, O, Progress) (*results.Experiment, error)) {
	planned := func(o O) (Plan, error) { return Prepared(plan(o)) }
	return planned, func(ctx context.Context, o O, progress Progress) (*results.Experiment, error) {
		return RunPlanned(ctx, o, planned, progress)
	}
}

// RunPlanned plans o with plan and, if o is valid, runs it: what each
// experiment's Run is.
func RunPlanned[O any](ctx context.Context, o O, plan func(O) (Plan, error), progress Progress) (*results.Experiment, error) {
	p, err := plan(o)
	if err != nil {
		return nil, err
	}
	return p(ctx, progress)
}
