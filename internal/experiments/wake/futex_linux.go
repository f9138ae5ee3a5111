//go:build linux

package wake

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futexOK says the raw futex operations exist here.
const futexOK = true

// futex(2) operations (linux/futex.h); x/sys/unix does not export them.
const (
	opWait        = 0
	opWake        = 1
	opCmpRequeue  = 4
	opPrivateFlag = 128
)

// futexFlag is opPrivateFlag for private futexes (perf's default) or 0 for
// shared ones (perf -S).
func futexFlag(shared bool) uintptr {
	if shared {
		return 0
	}
	return opPrivateFlag
}

// Every word passed to the kernel is a field of a heap object the caller
// keeps reachable for the call; the conversion to uintptr is inside the
// call expression.

// futexWait sleeps while *w == val and reports whether a signal
// interrupted it (EINTR: the caller waits again, as perf's workerfn does).
// It goes through unix.Syscall6, which tells the Go scheduler the thread
// is in a syscall, as every blocking wait in parkbench does
// (docs/experiments.md, "Method and thread model").
func futexWait(w *atomic.Uint32, val uint32, flag uintptr) (interrupted bool) {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWait|flag, uintptr(val), 0, 0, 0)
	return e == unix.EINTR
}

// futexWake wakes at most n sleepers on w and returns how many it woke.
// A wake never blocks, so it goes through RawSyscall6, like perf's
// syscall(2): no scheduler hooks on the waker's measured path.
func futexWake(w *atomic.Uint32, n int, flag uintptr) int {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWake|flag, uintptr(n), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// futexRequeue is FUTEX_CMP_REQUEUE(from, nr_wake 0, nr_requeue n, to,
// expected 0), perf's futex_cmp_requeue(&futex1, 0, &futex2, 0, nrequeue):
// it moves up to n sleepers from from's queue to to's without waking any
// and returns how many it moved. It never blocks: RawSyscall6.
func futexRequeue(from, to *atomic.Uint32, n int, flag uintptr) int {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(from)), opCmpRequeue|flag, 0, uintptr(n),
		uintptr(unsafe.Pointer(to)), 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// futexWaitFail is the hash bench's operation: FUTEX_WAIT with a value the
// word never holds (perf's 1234 against a zeroed word), which the kernel
// refuses at once with EAGAIN after hashing the address and taking the
// bucket lock. It cannot block, so it goes through RawSyscall6, as perf's
// syscall(2). It reports whether the kernel refused, as expected.
func futexWaitFail(w *uint32, flag uintptr) bool {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWait|flag, 1234, 0, 0, 0)
	return e == unix.EAGAIN
}

// threadSleep sleeps the calling (locked) thread itself in the kernel for
// d, as perf's usleep(100000) before the timed wake
// (tools/perf/bench/futex-wake.c:199): the waker wakes from its own timer
// on its own CPU, not from another Go thread handing it its goroutine back
// (what time.Sleep on a locked goroutine does), so the CPUs are in perf's
// state when the clock starts. A signal cuts it short; so be it.
func threadSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil)
}
