package futex

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Scope is a futex's scope: Private (FUTEX_PRIVATE_FLAG: keyed by the
// process's address, what every parker here uses and perf bench futex's
// default) or Shared (keyed by the page, as futexes in shared memory; perf
// -S). The functions below are perf bench futex's own calls
// (tools/perf/bench/futex.h) for parkbench wake, in either scope.
type Scope uintptr

// The scopes.
const (
	Private Scope = privateFlag
	Shared  Scope = 0
)

// WaitScope is FUTEX_WAIT in scope s through unix.Syscall6, with no
// timeout: Wait's contract, shared or private.
func WaitScope(addr *atomic.Int32, val int32, s Scope) unix.Errno {
	_, _, e := unix.Syscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWait|uintptr(s),
		uintptr(uint32(val)), 0, 0, 0)
	return e
}

// WaitFails is FUTEX_WAIT in scope s for a value *addr does not hold, which
// the kernel refuses with EAGAIN after hashing the address and taking the
// bucket's lock (perf bench futex hash's operation). Since it cannot block
// while *addr != val, it goes through RawSyscall6, as perf's syscall(2);
// the caller must make sure the word never holds val.
func WaitFails(addr *atomic.Int32, val int32, s Scope) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWait|uintptr(s),
		uintptr(uint32(val)), 0, 0, 0)
	return e
}

// WakeN is FUTEX_WAKE in scope s of at most n sleepers (WakeAll: every
// one) through RawSyscall6: a wake never blocks, so the waker's measured
// call has no scheduler hooks, as perf's syscall(2). It returns the number
// woken and the errno.
func WakeN(addr *atomic.Int32, n int32, s Scope) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), opWake|uintptr(s), uintptr(n), 0, 0, 0)
	return int(r), e
}

// RequeueN is FUTEX_CMP_REQUEUE in scope s through RawSyscall6 (it never
// blocks): if *from == val, it wakes up to nwake sleepers on from and
// moves up to nrequeue of the rest onto to's queue. perf bench futex
// requeue calls it with nwake 0. It returns woken+requeued and the errno.
func RequeueN(from *atomic.Int32, nwake, nrequeue int32, to *atomic.Int32, val int32, s Scope) (int, unix.Errno) {
	r, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(from)), opCmpRequeue|uintptr(s),
		uintptr(nwake), uintptr(nrequeue), uintptr(unsafe.Pointer(to)), uintptr(uint32(val)))
	return int(r), e
}
