//go:build !linux

package selfwake

import "github.com/parkbench/parkbench/internal/probe"

// trivialSyscall is the probe's trivial kernel call for this OS
// (GetProcessTimes on Windows, getppid elsewhere).
func trivialSyscall() { probe.TrivialSyscall() }
