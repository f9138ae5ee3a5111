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

// run is never called here: plan fails with available's error first.
func (p *stacksPlan) Run(ctx context.Context, progress driver.Progress) (*results.Experiment, error) {
	return nil, available()
}
