//go:build !linux

package e12

import "os"

// trivialSyscall is one getppid (os.Getppid).
func trivialSyscall() { os.Getppid() }
