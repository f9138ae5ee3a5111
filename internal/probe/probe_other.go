//go:build !linux

package probe

import (
	"os"
	"time"

	"github.com/parkbench/parkbench/internal/results"
)

// SyscallCost returns the ns one trivial system call costs (os.Getppid).
func SyscallCost(n int) float64 {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		os.Getppid()
	}
	return float64(time.Since(t0)) / float64(n)
}

// Foreign is not measured on this OS.
type Foreign struct{}

// StartForeign starts a window (a no-op here).
func StartForeign() *Foreign { return &Foreign{} }

// Stop returns "not measured".
func (f *Foreign) Stop() *results.Foreign {
	return &results.Foreign{Fraction: -1, SameCPUFraction: -1}
}
