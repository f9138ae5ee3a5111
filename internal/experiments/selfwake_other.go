//go:build !linux

package experiments

import "os"

// trivialSyscall is one getppid (os.Getppid).
func trivialSyscall() { os.Getppid() }
