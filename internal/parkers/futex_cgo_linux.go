//go:build linux && cgo

package parkers

/*
#include <errno.h>
#include <stddef.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// pb_futex_wait is FUTEX_WAIT|FUTEX_PRIVATE_FLAG through libc's syscall(2)
// with a relative timeout (none when timed is 0); it returns 0 or the errno.
// The timespec is built here: a Go one passed by pointer would escape to the
// heap on every timed wait.
static int pb_futex_wait(int *addr, int val, int timed, long sec, long nsec) {
	struct timespec ts = {sec, nsec};
	if (syscall(SYS_futex, addr, FUTEX_WAIT_PRIVATE, val, timed ? &ts : NULL, NULL, 0) == 0) {
		return 0;
	}
	return errno;
}
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

const futexCgoBuilt = true

// futexWaitCgo is futex.Wait through a cgo call: runtime.cgocall enters
// the syscall state with entersyscall, as Syscall6 does, but from the cgo
// path (the wait runs on the thread's system stack, in C). The word is a
// field of a heap object without Go pointers, which cgo lets C read for the
// duration of the call. ts == nil waits without timeout.
func futexWaitCgo(addr *atomic.Int32, val int32, ts *unix.Timespec) unix.Errno {
	var timed C.int
	var sec, nsec C.long
	if ts != nil {
		timed, sec, nsec = 1, C.long(ts.Sec), C.long(ts.Nsec)
	}
	return unix.Errno(C.pb_futex_wait((*C.int)(unsafe.Pointer(addr)), C.int(val), timed, sec, nsec))
}
