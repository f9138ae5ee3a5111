//go:build linux

package parkers

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futex(2) operations and flags (linux/futex.h). x/sys/unix does not export
// them.
const (
	futexWait          = 0
	futexWake          = 1
	futexWaitBitset    = 9
	futexPrivateFlag   = 128
	futexBitsetAnyMask = 0xffffffff

	futexWaitPrivate       = futexWait | futexPrivateFlag
	futexWakePrivate       = futexWake | futexPrivateFlag
	futexWaitBitsetPrivate = futexWaitBitset | futexPrivateFlag
)

// Every futex word handed to the kernel here is a field of a heap object the
// caller keeps reachable for the duration of the call (Go's garbage
// collector does not move heap objects), converted to uintptr in the call
// expression itself, which keeps it alive across the syscall.

// futexWaitRel is FUTEX_WAIT|FUTEX_PRIVATE_FLAG through unix.Syscall6: the Go
// scheduler is told the thread is in a syscall and may hand its P to another
// thread while it sleeps. ts == nil waits without timeout. It returns the
// errno (0 when woken, EAGAIN when *addr != val on entry, ETIMEDOUT, EINTR).
func futexWaitRel(addr *atomic.Int32, val int32, ts *unix.Timespec) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(ts)), 0, 0)
	return e
}

// futexWaitRelRaw is futexWaitRel through unix.RawSyscall6: the runtime is
// not told, the thread keeps its P while blocked. Callers must bound ts (see
// futex-raw).
func futexWaitRelRaw(addr *atomic.Int32, val int32, ts *unix.Timespec) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(ts)), 0, 0)
	return e
}

// futexWaitAbs is Rust std's Linux futex_wait: FUTEX_WAIT_BITSET|PRIVATE with
// an absolute CLOCK_MONOTONIC deadline (nil: none) and the match-any mask.
func futexWaitAbs(addr *atomic.Int32, val int32, abs *unix.Timespec) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitBitsetPrivate,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(abs)), 0, futexBitsetAnyMask)
	return e
}

// futexWakeN is FUTEX_WAKE|FUTEX_PRIVATE_FLAG waking at most n waiters. It
// never blocks. It returns the number woken and the errno.
func futexWakeN(addr *atomic.Int32, n int32) (int, unix.Errno) {
	r, _, e := unix.Syscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, uintptr(n))
	return int(r), e
}

// fitsTimespec reports whether d's seconds fit this platform's time_t (32
// bits on 386 and arm: a Go Duration can hold 292 years, an int32 68).
func fitsTimespec(d time.Duration) bool {
	var ts unix.Timespec
	return unsafe.Sizeof(ts.Sec) == 8 || d/time.Second <= math.MaxInt32
}

// futexWakeRaw is futexWakeN(addr, 1) through unix.RawSyscall: FUTEX_WAKE
// never blocks, so bypassing the scheduler here is always safe.
func futexWakeRaw(addr *atomic.Int32) unix.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, 1)
	return e
}
