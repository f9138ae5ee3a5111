//go:build !linux && !windows

package probe

import (
	"os"
	"time"
)

// SyscallCost returns the ns one trivial system call costs (os.Getppid).
func SyscallCost(n int) float64 {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		os.Getppid()
	}
	return float64(time.Since(t0)) / float64(n)
}
