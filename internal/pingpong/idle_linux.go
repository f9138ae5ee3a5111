package pingpong

import (
	"time"

	"golang.org/x/sys/unix"
)

// idle sleeps the calling OS thread for d with nanosleep(2): the thread
// really leaves the CPU (time.Sleep would only park the goroutine and keep
// the thread spinning in the scheduler). EINTR just shortens the gap.
func idle(d time.Duration) {
	ts := unix.NsecToTimespec(int64(d))
	_ = unix.Nanosleep(&ts, nil)
}
