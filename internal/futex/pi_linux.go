package futex

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Priority-inheritance futex operations (include/uapi/linux/futex.h) and
// the bits of a PI futex word (Documentation/locking/pi-futex.rst): the
// word is the owner's TID, 0 when free, with FUTEX_WAITERS set by the
// kernel while a waiter is queued (the owner's unlock must then go through
// FUTEX_UNLOCK_PI) and FUTEX_OWNER_DIED when the owner exited holding it.
const (
	opLockPI      = 6
	opUnlockPI    = 7
	opTrylockPI   = 8
	lockPIPriv    = opLockPI | privateFlag
	unlockPIPriv  = opUnlockPI | privateFlag
	trylockPIPriv = opTrylockPI | privateFlag

	// PIWaiters is FUTEX_WAITERS: a waiter sleeps in the kernel.
	PIWaiters = 0x80000000
	// PIOwnerDied is FUTEX_OWNER_DIED.
	PIOwnerDied = 0x40000000
	// PITidMask is FUTEX_TID_MASK: the owner's TID.
	PITidMask = 0x3fffffff
)

// LockPI is FUTEX_LOCK_PI|FUTEX_PRIVATE_FLAG through unix.Syscall6 (the
// runtime is told the thread is in a syscall: it may sleep). The kernel
// takes the word if it is 0 (writing the caller's TID), else sets
// FUTEX_WAITERS, queues the caller by priority on the owner's rt_mutex and
// boosts the owner to the highest waiter's priority until it unlocks. It
// returns 0 when the caller owns the word, EDEADLK if it already did,
// ESRCH if the TID in the word is no thread, EINTR never (the kernel
// restarts the wait), ETIMEDOUT only with a deadline (none here).
func LockPI(addr *atomic.Uint32) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), lockPIPriv, 0, 0, 0, 0)
	return e
}

// UnlockPI is FUTEX_UNLOCK_PI|FUTEX_PRIVATE_FLAG: the owner (the word's
// TID must be the caller's, else EPERM) hands the word to the
// highest-priority waiter (its TID, with FUTEX_WAITERS if more wait) and
// wakes it, or stores 0 if none waits. It never blocks.
func UnlockPI(addr *atomic.Uint32) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), unlockPIPriv, 0)
	return e
}

// TrylockPI is FUTEX_TRYLOCK_PI|FUTEX_PRIVATE_FLAG: take the word if it is
// free (0), else EAGAIN/EBUSY at once; never blocks.
func TrylockPI(addr *atomic.Uint32) unix.Errno {
	_, _, e := unix.Syscall(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), trylockPIPriv, 0)
	return e
}

// Gettid is the calling thread's kernel TID (a system call: glibc reads its
// cached copy in the thread's TCB, Go has no such cache for user code, so
// callers that lock often read it once per locked thread).
func Gettid() uint32 {
	r, _ := unix.RawSyscallNoError(unix.SYS_GETTID, 0, 0, 0)
	return uint32(r)
}
