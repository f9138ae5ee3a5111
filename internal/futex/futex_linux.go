package futex

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// futex(2) operations and flags (include/uapi/linux/futex.h). x/sys/unix
// does not export them.
const (
	opWait         = 0
	opWake         = 1
	opCmpRequeue   = 4
	opWaitBitset   = 9
	privateFlag    = 128
	bitsetMatchAny = 0xffffffff
	waitPrivate    = opWait | privateFlag
	wakePrivate    = opWake | privateFlag
	waitBitsetPriv = opWaitBitset | privateFlag
	cmpRequeuePriv = opCmpRequeue | privateFlag
	// WakeAll is the n of Wake that wakes every sleeper.
	WakeAll = math.MaxInt32
)

// Wait is FUTEX_WAIT|FUTEX_PRIVATE_FLAG through unix.Syscall6: it sleeps
// while *addr == val, at most ts (nil: no timeout). The Go scheduler is
// told the thread is in a syscall and may hand its P to another thread
// while it sleeps. It returns the errno: 0 when woken (by a FUTEX_WAKE on
// addr, or on the futex it was requeued to), EAGAIN when *addr != val on
// entry (the kernel compares under its hash-bucket lock, against which
// FUTEX_WAKE synchronises: no wake between the caller's check and the
// sleep is lost), ETIMEDOUT, EINTR.
func Wait(addr *atomic.Int32, val int32, ts *unix.Timespec) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), waitPrivate,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(ts)), 0, 0)
	return e
}

// WaitRaw is Wait through unix.RawSyscall6: the runtime is not told, the
// thread keeps its P while blocked. Callers must bound ts (the futex-raw
// parker does).
func WaitRaw(addr *atomic.Int32, val int32, ts *unix.Timespec) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), waitPrivate,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(ts)), 0, 0)
	return e
}

// WaitAbs is Rust std's Linux futex_wait: FUTEX_WAIT_BITSET|PRIVATE with
// an absolute CLOCK_MONOTONIC deadline (nil: none) and the match-any mask.
func WaitAbs(addr *atomic.Int32, val int32, abs *unix.Timespec) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), waitBitsetPriv,
		uintptr(uint32(val)), uintptr(unsafe.Pointer(abs)), 0, bitsetMatchAny)
	return e
}

// Wake is FUTEX_WAKE|FUTEX_PRIVATE_FLAG waking at most n sleepers on addr
// (WakeAll: every one). It never blocks. It returns the number woken and
// the errno.
func Wake(addr *atomic.Int32, n int32) (int, unix.Errno) {
	r, _, e := unix.Syscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), wakePrivate, uintptr(n))
	return int(r), e
}

// WakeRaw is Wake(addr, 1) through unix.RawSyscall: FUTEX_WAKE never
// blocks, so bypassing the scheduler here is always safe.
func WakeRaw(addr *atomic.Int32) unix.Errno {
	_, _, e := unix.RawSyscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), wakePrivate, 1)
	return e
}

// CmpRequeue is FUTEX_CMP_REQUEUE|PRIVATE: if *from == val, it wakes up to
// nwake sleepers on from and moves up to nrequeue of the rest onto to's
// queue, atomically under the kernel's hash-bucket locks. It returns
// woken+requeued, or EAGAIN when *from != val. The kernel wakes first and
// requeues after, so with nwake = 1 and a result r > 0, exactly one was
// woken and r-1 requeued.
func CmpRequeue(from *atomic.Int32, nwake, nrequeue int32, to *atomic.Int32, val int32) (int, unix.Errno) {
	r, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(from)), cmpRequeuePriv,
		uintptr(nwake), uintptr(nrequeue), uintptr(unsafe.Pointer(to)), uintptr(uint32(val)))
	return int(r), e
}

// FitsTimespec reports whether d's seconds fit this platform's time_t (32
// bits on 386 and arm: a Go Duration can hold 292 years, an int32 68).
func FitsTimespec(d time.Duration) bool {
	var ts unix.Timespec
	return unsafe.Sizeof(ts.Sec) == 8 || d/time.Second <= math.MaxInt32
}
