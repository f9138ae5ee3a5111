// Package futexsync holds the futex-based mutex and condition variables the
// herd experiment (E6) compares with parking_lot's Condvar:
//
//   - Mutex is Rust std's Linux futex mutex (library/std/src/sys/sync/mutex/
//     futex.rs): one int32, 0 unlocked / 1 locked / 2 locked and contended
//     (someone may be sleeping on the word). Lock tries 0->1, spins briefly
//     while the state is 1, then swaps in 2 and FUTEX_WAITs while it reads 2.
//     Unlock swaps in 0 and, if it read 2, FUTEX_WAKEs one sleeper.
//   - Condvar is Rust std's futex condvar (sys/sync/condvar/futex.rs): one
//     int32 sequence counter. Wait loads the counter, unlocks the mutex,
//     FUTEX_WAITs on the counter, relocks. NotifyAll increments the counter
//     and FUTEX_WAKEs every waiter: they all wake and all go for the mutex
//     (the thundering herd the study talks about).
//   - RequeueCondvar is the condvar std never got (rust-lang/rust PR #133615):
//     NotifyAll moves the waiters from the counter's futex to the mutex's
//     futex with FUTEX_CMP_REQUEUE, so each mutex unlock wakes one of them.
//     That is only correct with integration between the two: the mutex must
//     be marked contended (2) before anyone is requeued onto it, and every
//     waiter coming back from the condvar relocks in contended mode (swap 2),
//     so that each unlock keeps waking the next requeued waiter. See
//     RequeueCondvar for the argument.
//
// Every futex call goes through unix.Syscall6 (the Go scheduler is told the
// thread is in a syscall and may hand its P away while it sleeps). The
// callers are goroutines locked to their OS threads; futexes are private.
//
// The package is Linux only; elsewhere Supported reports false and the
// types' methods panic.
package futexsync
