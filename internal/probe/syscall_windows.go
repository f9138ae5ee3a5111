package probe

import (
	"time"

	"golang.org/x/sys/windows"
)

// SyscallCost returns the ns one trivial kernel call costs: GetProcessTimes
// on this process (NtQueryInformationProcess, a read of four counters).
// Not os.Getppid: on Windows that walks a CreateToolhelp32Snapshot of every
// process, milliseconds a call, which made Measure take minutes (seen under
// Wine, where the experiments' tests timed out in it).
func SyscallCost(n int) float64 {
	var c, e, k, u windows.Filetime
	self := windows.CurrentProcess()
	t0 := time.Now()
	for i := 0; i < n; i++ {
		_ = windows.GetProcessTimes(self, &c, &e, &k, &u) // cannot fail on the own pseudo-handle
	}
	return float64(time.Since(t0)) / float64(n)
}
