// Package timeout asks how late each park-until returns after its
// deadline. Every timed wait parkbench knows (each ThreadParker's ParkUntil,
// each TokenParker's ParkDeadline, the parking lot's Park with a deadline,
// Condvar.WaitUntil, Mutex.TryLockUntil on a held mutex, and clock_nanosleep
// as the kernel's own floor) is run with nobody waking it, on a fresh OS
// thread per configuration, for a sweep of deadlines and timer slacks. The
// overshoot (return time - deadline) is what a user of that timeout pays on
// top of what they asked for; a negative overshoot is an early return, a bug.
//
// Timer slack (prctl PR_SET_TIMERSLACK, per thread) is how much later than
// asked the kernel may fire a thread's hrtimer so it can batch wake-ups;
// normal threads get 50 µs. It applies to every kernel-timed wait of that
// thread (futex timeouts, pthread_cond_timedwait, nanosleep), so on an idle
// machine it is most of the overshoot of a short timed wait.
//
// The method in full is in docs/experiments.md ("timeout"). The files:
// options.go (Options, defaults, validation), impls.go (the mechanisms;
// lot.go and slack_linux.go add the lot's and nanosleep), run.go (Plan /
// Run, one configuration, the notes), claims.go.
package timeout
