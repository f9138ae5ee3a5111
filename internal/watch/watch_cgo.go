//go:build (linux || darwin) && cgo

package watch

/*
#cgo CFLAGS: -O2 -std=gnu11
#include "watch.h"
*/
import "C"

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// Self is pbwd_self, the C function that returns the calling thread's
// slot, for the C of other packages (internal/plugin, internal/cref): each
// package's C is compiled apart, so they reach the one list through this
// pointer, given to them once.
func Self() unsafe.Pointer { return unsafe.Pointer(C.pbwd_self) }

// scan is one look: the implementation, library and call of a slot
// stalled for looks looks, if any.
func scan(looks int) (impl, lib, op string, hung bool) {
	var ci, cl *C.char
	var cop, told C.int
	if C.pbwd_scan(C.int(looks), &ci, &cl, &cop, &told) == 0 {
		return "", "", "", false
	}
	impl, lib = "?", "?"
	if ci != nil {
		impl = C.GoString(ci)
	}
	if cl != nil {
		lib = C.GoString(cl)
	}
	op = C.GoString(C.pbwd_op_name(cop))
	if told != 0 {
		op += ", which did not return when the stop flag was set,"
	}
	return impl, lib, op, true
}

func installCrashNote() {
	if e := C.pbwd_crash_note(); e != 0 {
		fmt.Fprintf(os.Stderr, "parkbench: the plugin crash note is not installed: %v\n", syscall.Errno(e))
	}
}
