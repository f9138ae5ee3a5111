// Package experiments runs the study's experiments (E12 latency and its
// selfwake reverse check, E6 herd) and parkbench's own (timeout, stacks).
// Each experiment takes an options struct, measures, evaluates the study's
// claims from the numbers it just measured, and returns a
// *results.Experiment. Experiments never print: commands render.
package experiments

import "context"

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
