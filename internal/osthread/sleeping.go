package osthread

import (
	"fmt"
	"sync"
	"time"
)

// StateReadable reports whether a thread's scheduler state can be read
// here (State: /proc on Linux), which AwaitSleeping needs.
var StateReadable = sync.OnceValue(func() bool {
	_, err := State(Tid())
	return err == nil
})

// AwaitSleeping polls, every poll, until each of n threads has been seen
// sleeping (state 'S' in /proc/self/task/TID/stat), or deadline passes.
// tid(i) returns 0 until thread i has published its id. A thread seen
// sleeping is not polled again: the callers make sure that, once a thread
// has counted itself in right before its wait, the only place it can sleep
// is that wait, so one sighting is enough.
func AwaitSleeping(n int, tid func(int) int, deadline time.Time, poll time.Duration) error {
	seen := make([]bool, n)
	left := n
	for {
		for i := 0; i < n; i++ {
			if seen[i] {
				continue
			}
			t := tid(i)
			if t <= 0 {
				continue
			}
			st, err := State(t)
			if err != nil {
				return fmt.Errorf("reading the state of thread %d: %w", t, err)
			}
			if st == 'S' {
				seen[i] = true
				left--
			}
		}
		if left == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d threads not seen sleeping (state S) within the bound", left, n)
		}
		time.Sleep(poll)
	}
}
