//go:build linux && !cgo

package parkers

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

const futexCgoBuilt = false

// futexWaitCgo is never called without cgo: futex-cgo is unavailable.
func futexWaitCgo(*atomic.Int32, int32, *unix.Timespec) unix.Errno {
	panic("parkers: futex-cgo without cgo")
}
