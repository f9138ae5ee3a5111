// Package experiments runs the study's experiments (E12 latency and its
// selfwake reverse check, E6 herd) and parkbench's own (timeout, stacks).
// Each experiment takes an options struct, measures, evaluates the study's
// claims from the numbers it just measured, and returns a
// *results.Experiment. Experiments never print: commands render.
package experiments

import (
	"context"
	"fmt"
)

// Progress is told how far an experiment is; label names the configuration
// running. It may be nil.
type Progress func(done, total int, label string)

func (p Progress) report(done, total int, label string) {
	if p != nil {
		p(done, total, label)
	}
}

// interrupted reports whether ctx has been cancelled (SIGINT / SIGTERM).
func interrupted(ctx context.Context) bool { return ctx.Err() != nil }

// OptionError is bad input only an experiment can detect (an unknown
// implementation, one not available here, a placement this machine cannot
// do). Commands turn it into exit status 2.
type OptionError struct{ Err error }

func (e *OptionError) Error() string { return e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

// badOption returns an *OptionError.
func badOption(format string, a ...any) error {
	return &OptionError{fmt.Errorf(format, a...)}
}
