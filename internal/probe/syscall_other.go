//go:build !linux && !windows

package probe

import (
	"os"
	"time"
)

// TrivialSyscall is one trivial system call (os.Getppid).
func TrivialSyscall() { os.Getppid() }

// SyscallCost returns the ns one TrivialSyscall costs.
func SyscallCost(n int) float64 {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		TrivialSyscall()
	}
	return float64(time.Since(t0)) / float64(n)
}
