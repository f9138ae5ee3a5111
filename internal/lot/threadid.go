package lot

import (
	"runtime"
	"sync"

	"github.com/parkbench/parkbench/internal/osthread"
)

// threadID identifies the calling thread for ReentrantMutex's owner
// (upstream: the address of a thread-local, parking_lot src/remutex.rs
// RawThreadId) and names the thread in the deadlock detector's report (its
// records are per goroutine, deadlock_on.go). Never zero.
//
// parkbench's thread is a goroutine locked to its OS thread
// (runtime.LockOSThread, internal/osthread), so where the OS has a thread
// id (Linux: gettid via osthread.Tid) that is the identity. Limits: a
// goroutine that is not locked to its thread may run on another thread
// between two calls and so look like another thread, and two such
// goroutines may share one; for them the identity means nothing. Where
// osthread.Tid is unavailable (-1), the goroutine's id is used instead
// (read from runtime.Stack: about a microsecond), which is exact for
// every goroutine but costs more. Either is a syscall or more per call,
// against upstream's free thread-local address.
func threadID() uintptr {
	if t := osthread.Tid(); t > 0 {
		return uintptr(t)
	}
	return goroutineID()
}

// stackBufs holds goroutineID's buffers: runtime.Stack's argument escapes,
// so a local array would be one allocation per call (measured on wasm:
// TestDeadlockHooksFree).
var stackBufs = sync.Pool{New: func() any { return new([64]byte) }}

// goroutineID parses "goroutine N [" from the calling goroutine's stack
// header.
func goroutineID() uintptr {
	buf := stackBufs.Get().(*[64]byte)
	defer stackBufs.Put(buf)
	b := buf[:runtime.Stack(buf[:], false)]
	const prefix = "goroutine "
	if len(b) < len(prefix) {
		panic("lot: cannot read the goroutine id")
	}
	var id uintptr
	for _, c := range b[len(prefix):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uintptr(c-'0')
	}
	if id == 0 {
		panic("lot: cannot read the goroutine id")
	}
	return id
}
