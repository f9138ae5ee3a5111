//go:build linux

package rawfutex

import (
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Supported says the raw futex operations exist here.
const Supported = true

// futex(2) operations (linux/futex.h); x/sys/unix does not export them.
const (
	opWait        = 0
	opWake        = 1
	opCmpRequeue  = 4
	opPrivateFlag = 128
)

// Flag is the operation flag: private futexes (perf's default) or shared
// ones (perf -S).
func Flag(shared bool) uintptr {
	if shared {
		return 0
	}
	return opPrivateFlag
}

// Every word passed to the kernel is a field of a heap object the caller
// keeps reachable for the call; the conversion to uintptr is inside the
// call expression.

// Wait sleeps while *w == val and reports whether a signal interrupted it
// (EINTR: the caller waits again, as perf's workerfn does). It goes
// through unix.Syscall6, which tells the Go scheduler the thread is in a
// syscall, as every blocking wait in parkbench does (docs/experiments.md,
// "Method and thread model").
func Wait(w *atomic.Uint32, val uint32, flag uintptr) (interrupted bool) {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWait|flag, uintptr(val), 0, 0, 0)
	return e == unix.EINTR
}

// Wake wakes at most n sleepers on w and returns how many it woke. A wake
// never blocks, so it goes through RawSyscall6, like perf's syscall(2): no
// scheduler hooks on the waker's measured path.
func Wake(w *atomic.Uint32, n int, flag uintptr) int {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWake|flag, uintptr(n), 0, 0, 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// Requeue is FUTEX_CMP_REQUEUE(from, nr_wake 0, nr_requeue n, to,
// expected 0), perf's futex_cmp_requeue(&futex1, 0, &futex2, 0, nrequeue):
// it moves up to n sleepers from from's queue to to's without waking any
// and returns how many it moved. It never blocks: RawSyscall6.
func Requeue(from, to *atomic.Uint32, n int, flag uintptr) int {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(from)), opCmpRequeue|flag, 0, uintptr(n),
		uintptr(unsafe.Pointer(to)), 0)
	if e != 0 {
		return 0
	}
	return int(r)
}

// WaitFail is perf's hash operation: FUTEX_WAIT with a value the word
// never holds (perf's 1234 against a zeroed word), which the kernel
// refuses at once with EAGAIN after hashing the address and taking the
// bucket lock. It cannot block, so it goes through RawSyscall6, as perf's
// syscall(2). It reports whether the kernel refused, as expected.
func WaitFail(w *uint32, flag uintptr) bool {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), opWait|flag, 1234, 0, 0, 0)
	return e == unix.EAGAIN
}

// ThreadSleep sleeps the calling (locked) thread itself in the kernel for
// d, as perf's usleep(100000) before its timed wake: the thread wakes from
// its own timer on its own CPU, not from another Go thread handing its
// goroutine back (what time.Sleep on a locked goroutine does). A signal
// cuts it short.
func ThreadSleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil)
}

// SetTimerSlack sets the calling (locked) thread's timer slack
// (prctl(PR_SET_TIMERSLACK)), which a nanosleep overshoots by at most: a
// thread that paces requests asks for 1 ns instead of the default 50 µs.
func SetTimerSlack(d time.Duration) error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0)
}
