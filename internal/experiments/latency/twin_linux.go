package latency

import (
	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// The Go twins of the C reference: exactly cref.c's protocol (the flag is
// the futex word; spin reads the flag itself), with no parker in between.
// Against c-futex / c-spin they isolate what the Go runtime adds to a wake;
// against futex / spin, what the parker protocol adds (PreparePark's store
// and the parker's own word: a second cache line per wake).

// twinAvailable: the twins run here.
func twinAvailable() error { return nil }

// twinFutex waits with FUTEX_WAIT_PRIVATE(flag, 0) through futex.Wait
// (unix.Syscall6: scheduler-aware, as the futex backend) and wakes with
// FUTEX_WAKE_PRIVATE.
// No wake is lost: the kernel compares the word with 0 under its bucket
// lock before sleeping, and the waker stores 1 before FUTEX_WAKE, which
// takes the same lock (see cref.c).
type twinFutex struct{ pp *pingpong }

func (m *twinFutex) setup(int) {}

func (m *twinFutex) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	slept := false
	for f.Load() == 0 {
		if e := futex.Wait(f, 0, nil); e != unix.EAGAIN {
			slept = true
		}
	}
	return !slept
}

func (m *twinFutex) wake(peer int) {
	futex.Wake(&m.pp.slots[peer].flag, 1)
}

func (m *twinFutex) immediate() uint64 { return 0 }

// twinSpin busy-waits on the flag itself: one cache line per wake, as
// c-spin.
type twinSpin struct{ pp *pingpong }

func (m *twinSpin) setup(int) {}

func (m *twinSpin) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	for f.Load() == 0 {
	}
	return false
}

func (m *twinSpin) wake(int) {}

func (m *twinSpin) immediate() uint64 { return 0 }
