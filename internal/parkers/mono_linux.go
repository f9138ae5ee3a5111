//go:build linux

package parkers

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

func init() {
	calibrateMono(func() time.Duration {
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
		return time.Duration(ts.Nano())
	})
}

// monoAbs is monoAbsNs as a timespec.
func monoAbs(deadline time.Time) (unix.Timespec, bool) {
	ns, ok := monoAbsNs(deadline)
	if !ok || !futex.FitsTimespec(time.Duration(ns)) {
		return unix.Timespec{}, false
	}
	return unix.NsecToTimespec(ns), true
}
