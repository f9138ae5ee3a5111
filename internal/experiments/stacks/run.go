package stacks

import (
	"context"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Plan validates o (an *driver.OptionError for bad input; off Linux, that
// stacks does not run here) and returns the run it describes.
func Plan(o Options) (driver.Plan, error) { return driver.Prepared(plan(o)) }

// Run blocks one thread (or goroutine) on each mechanism, waits until
// each is really asleep, samples where it sleeps, then wakes and joins all.
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return driver.RunPlanned(ctx, o, Plan, progress)
}
