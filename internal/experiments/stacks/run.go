package stacks

import (
	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Plan validates o (an *driver.OptionError for bad input; off Linux, that
// stacks does not run here) and returns the run it describes. Run blocks
// one thread (or goroutine) on each mechanism, waits until each is really
// asleep, samples where it sleeps, then wakes and joins all.
var Plan, Run = driver.Planned(plan)
