package pingpong

import (
	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

// TwinsAvailable: the Go twins of the C reference (GoFutex, GoSpin) run
// here.
func TwinsAvailable() error { return nil }

// wait is cref.c's wait_flag: the first look, then a plain load loop
// (spin) or FUTEX_WAIT until the flag is set (futex).
func (m *twin) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	if !m.futex {
		for f.Load() == 0 {
		}
		return false
	}
	slept := false
	for f.Load() == 0 {
		if e := futex.Wait(f, 0, nil); e != unix.EAGAIN {
			slept = true
		}
	}
	return !slept
}

// wake is cref.c's wake_word: FUTEX_WAKE (futex), nothing (spin).
func (m *twin) wake(peer int) {
	if m.futex {
		futex.Wake(&m.pp.slots[peer].flag, 1)
	}
}
