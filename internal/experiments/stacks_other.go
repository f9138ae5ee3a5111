//go:build !linux

package experiments

import (
	"context"
	"runtime"

	"github.com/parkbench/parkbench/internal/results"
)

// RunStacks is Linux only: it reads /proc/self/task/TID to see where each
// blocked thread sleeps.
func RunStacks(ctx context.Context, o StacksOptions) (*results.Experiment, error) {
	if _, err := resolveStackNames(o.Mechanisms); err != nil {
		return nil, err
	}
	return nil, badOption("stacks is linux only (it reads /proc/self/task/TID/{wchan,syscall,stat,stack}); this is %s", runtime.GOOS)
}
