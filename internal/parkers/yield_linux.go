//go:build linux

package parkers

import "golang.org/x/sys/unix"

// setCgoYield ignores libc's sched_yield: Linux's Yield makes the system call
// itself.
func setCgoYield(func()) {}

// Yield is the platform's thread_yield, what parking_lot's SpinWait calls
// after its spin rounds: std::thread::yield_now, i.e. sched_yield(2) on
// Linux. It goes through unix.Syscall so the Go scheduler knows the thread
// is in the kernel; sched_yield never blocks, so the P is not handed off in
// practice.
func Yield() {
	unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
}

// yieldImpl says what Yield does here, for Summary lines.
const yieldImpl = "sched_yield(2)"
