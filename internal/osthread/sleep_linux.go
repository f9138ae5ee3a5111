package osthread

import (
	"time"

	"golang.org/x/sys/unix"
)

// Sleep sleeps the calling (locked) thread itself in the kernel for d
// (nanosleep), as a C thread's usleep: it wakes from its own timer on its
// own CPU, not from another Go thread handing its goroutine back (what
// time.Sleep on a locked goroutine does). A signal cuts it short.
func Sleep(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil)
}

// SetTimerSlack sets the calling (locked) thread's timer slack
// (prctl(PR_SET_TIMERSLACK)), which its sleeps may overshoot by: a thread
// that paces itself asks for 1 ns instead of the default 50 µs.
func SetTimerSlack(d time.Duration) error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0)
}
