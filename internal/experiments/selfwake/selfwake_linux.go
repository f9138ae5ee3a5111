package selfwake

import "golang.org/x/sys/unix"

// trivialSyscall is one getppid through unix.Syscall, the scheduler-aware
// entry the blocking parkers use (as probe.SyscallCost).
func trivialSyscall() { unix.Syscall(unix.SYS_GETPPID, 0, 0, 0) }
