//go:build !linux

package stacks

import (
	"context"
	"runtime"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// available: stacks is Linux only; it reads /proc/self/task/TID to see
// where each blocked thread sleeps.
func available() error {
	return driver.Bad("Mechanisms", "stacks is linux only (it reads /proc/self/task/TID/{wchan,syscall,stat,stack}); this is %s", runtime.GOOS)
}

// Run reports that stacks does not run here (Validate's error).
func Run(ctx context.Context, o Options, progress driver.Progress) (*results.Experiment, error) {
	return nil, o.Validate()
}
