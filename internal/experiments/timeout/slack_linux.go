//go:build linux

package timeout

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/parkers"
)

const slackSupported = true

// setTimerSlack sets the calling thread's timer slack (prctl
// PR_SET_TIMERSLACK). The caller is locked to its thread.
func setTimerSlack(d time.Duration) error {
	if err := unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(d.Nanoseconds()), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_TIMERSLACK, %d): %w", d.Nanoseconds(), err)
	}
	return nil
}

// timerSlack reads the calling thread's timer slack back in ns (-1 on error).
func timerSlack() int64 {
	v, err := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	if err != nil {
		return -1
	}
	return int64(v)
}

func init() {
	extraMechanisms = append(extraMechanisms, func(parkers.Backend) mechanism {
		return mechanism{
			name: "nanosleep", kind: "reference", kernelTimed: true,
			summary: "nanosleep until the deadline: the kernel's own timed sleep, the floor of every other row",
			newWaiter: func() timedWaiter {
				return timedWaiter{wait: nanosleepUntil, close: func() {}}
			},
		}
	})
}

// nanosleepUntil is the kernel's own timed sleep, the floor of every other
// row: nanosleep(remaining) until the monotonic clock passes the deadline.
func nanosleepUntil(deadline time.Time) bool {
	for {
		rem := time.Until(deadline)
		if rem <= 0 {
			return false
		}
		ts := unix.NsecToTimespec(int64(rem))
		_ = unix.Nanosleep(&ts, nil) // EINTR: loop
	}
}
