//go:build parkchaos && linux

package chaos

import "syscall"

// osYield gives the CPU to another thread: sched_yield(2), through
// syscall.Syscall so that the Go scheduler knows the thread is in the kernel.
func osYield() { syscall.Syscall(syscall.SYS_SCHED_YIELD, 0, 0, 0) }
