package loaded

import "github.com/parkbench/parkbench/internal/futex"

// futexWait is schbench's fwait (schbench.c:842-863): FUTEX_WAIT_PRIVATE
// while the word still says sleepy. The kernel compares the word under its
// bucket lock, and the poster's CAS to posted comes before its
// FUTEX_WAKE: either the wait sees posted and returns at once (EAGAIN), or
// it is queued before the wake and woken by it.
func futexWait(s *slot) {
	for s.state.Load() != posted {
		futex.Wait(&s.state, sleepy, nil)
	}
}

// futexWake is schbench's fpost (schbench.c:821-834): one
// FUTEX_WAKE_PRIVATE after the CAS, through RawSyscall6 (it never blocks).
func futexWake(s *slot) { futex.WakeN(&s.state, 1, futex.Private) }
