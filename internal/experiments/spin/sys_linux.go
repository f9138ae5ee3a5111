package spin

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// The waiter's and the waker's system calls: the futex wait and wake on a
// word (internal/futex, FUTEX_WAIT_PRIVATE / FUTEX_WAKE_PRIVATE, the wait
// through the scheduler-aware Syscall6 as the futex parker's), the
// thread's own CPU clock and its context switches. Elsewhere (sys_other.go)
// nothing runs: every row needs futexes (driver.NeedFutex).

// futexWait sleeps while *w == val (EAGAIN at once when it is not, EINTR
// on a signal: the callers loop on the word either way).
func futexWait(w *atomic.Int32, val int32) { futex.Wait(w, val, nil) }

// futexWake wakes at most n threads waiting on w (one through the raw
// call: a wake never blocks).
func futexWake(w *atomic.Int32, n int32) {
	if n == 1 {
		futex.WakeRaw(w)
		return
	}
	futex.Wake(w, n)
}

// threadCPU is the calling thread's CPU time in ns
// (clock_gettime(CLOCK_THREAD_CPUTIME_ID): user and kernel time, to the
// nanosecond; no vDSO path for CPU clocks, so one system call, made raw:
// it never blocks).
func threadCPU() int64 {
	var ts unix.Timespec
	unix.RawSyscall(unix.SYS_CLOCK_GETTIME, unix.CLOCK_THREAD_CPUTIME_ID, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano()
}

// threadSwitches is the calling thread's voluntary and involuntary context
// switches (getrusage(RUSAGE_THREAD), made raw: it never blocks).
func threadSwitches() (vol, invol int64) {
	var ru unix.Rusage
	unix.RawSyscall(unix.SYS_GETRUSAGE, uintptr(unix.RUSAGE_THREAD), uintptr(unsafe.Pointer(&ru)), 0)
	return ru.Nvcsw, ru.Nivcsw
}
