// Package spin asks how long a waiter should spin before it parks, on this
// machine. A waiter and a waker run on two CPUs (cross-core) or share one
// (oversubscribed); per wait the waker, holding the lock, signals after a
// gap, and the waiter spins up to a budget, then parks on a futex (word.go:
// the word's protocol, and why it loses no wakeup). Rows: fixed budgets
// from 0 (park at once) to unbounded (never park), the competitive rule
// (spin for the park + wake cost measured in the same round by a futex
// ping-pong, then park: Karlin, Manasse, McGeoch and Owicki 1991), and the
// libraries' own strategies (strategies.go: parking_lot's SpinWait through
// lot, Go's sync.Mutex spin, crossbeam's Backoff; glibc's adaptive mutex
// on C threads, internal/cref spin.c; a plugin's lock).
//
// Per row and gap: the wake latency (signal -> the waiter sees it; median,
// p99, an HDR histogram per round), the waiter's CPU per wait (its thread
// CPU clock), the share of waits that never slept, context switches; per
// gap the budget past which the latency stops improving (answers.go), and
// the libraries' budgets timed alone beside the competitive budget.
// claims.go says what the figures should show. A wait that has not ended
// WatchdogPeriod after its signal is a lost wakeup, and no wait ending for
// StallPeriod with no signal pending a stall: either fails the run naming
// the row.
//
// The method in full is in docs/experiments.md ("spin"). The files:
// options.go (Options, validation), rows.go (the rows), strategies.go (the
// spin phases), word.go (the word and the handshakes), pair.go (the two
// threads, a job, the watchdog), run.go (Plan / Run), table.go (reading a
// result back), answers.go, claims.go, metricspec.go.
package spin
