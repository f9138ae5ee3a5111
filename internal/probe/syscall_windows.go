package probe

import (
	"time"

	"golang.org/x/sys/windows"
)

// TrivialSyscall is one trivial kernel call: GetProcessTimes on this
// process (NtQueryInformationProcess, a read of four counters). Not
// os.Getppid: on Windows that walks a CreateToolhelp32Snapshot of every
// process, milliseconds a call, which made Measure take minutes and
// selfwake's syscall row never end (seen under Wine).
func TrivialSyscall() {
	var c, e, k, u windows.Filetime
	_ = windows.GetProcessTimes(windows.CurrentProcess(), &c, &e, &k, &u) // cannot fail on the own pseudo-handle
}

// SyscallCost returns the ns one TrivialSyscall costs.
func SyscallCost(n int) float64 {
	t0 := time.Now()
	for i := 0; i < n; i++ {
		TrivialSyscall()
	}
	return float64(time.Since(t0)) / float64(n)
}
