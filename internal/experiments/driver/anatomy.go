package driver

import (
	"runtime"

	"github.com/parkbench/parkbench/internal/ktrace"
)

// CheckAnatomy refuses --anatomy (Options field "Anatomy") where it cannot
// run: off Linux, or with tracing unavailable (internal/ktrace's reason and
// its fix, in one line). Every experiment with --anatomy calls it while
// validating, before it measures anything.
func CheckAnatomy() error {
	if runtime.GOOS != "linux" {
		return Bad("Anatomy", "reads the Linux kernel's tracepoints (perf_event_open): not available on %s", runtime.GOOS)
	}
	if err := ktrace.Check(); err != nil {
		return Bad("Anatomy", "%v", err)
	}
	return nil
}
