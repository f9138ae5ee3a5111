package wake

import (
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/futex"
)

// lingerer holds woken waiter threads until the run is over. On Linux they
// sleep in FUTEX_WAIT (one syscall, no trip through the Go scheduler,
// whose park path may wake other threads in the waker's window).
type lingerer struct {
	w atomic.Int32
	_ [60]byte
}

func newLingerer() *lingerer { return &lingerer{} }

// wait sleeps the calling thread until end.
func (l *lingerer) wait() {
	for l.w.Load() == 0 {
		futex.Wait(&l.w, 0, nil)
	}
}

// end wakes every lingering thread, now and later.
func (l *lingerer) end() {
	l.w.Store(1)
	futex.Wake(&l.w, futex.WakeAll)
}
