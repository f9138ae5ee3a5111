// Package herd is the study's E6: N waiters wait on one condition variable
// with one mutex; once every waiter is really asleep, the notifier sets the
// condition and calls notify_all (or N x notify_one) with the mutex held or
// released (the two branches of parking_lot's validate). Each waiter, once
// it holds the mutex, stamps the time, holds it for Options.Hold by
// busy-waiting on the monotonic clock, releases, and sleeps until the
// repeat is over. Each repeat uses fresh threads.
//
// "Really asleep": every waiter increments a counter under the mutex right
// before it waits; the notifier waits for the count to reach N, then polls
// /proc/self/task/TID/stat until every waiter thread is sleeping
// (awaitSleeping in repeat.go). Goroutine-level sync has no thread state to
// poll: the count plus a settle time.
//
// Every repeat checks that no two holds overlapped and that each waiter
// returned exactly once; a failed check, or a repeat still unfinished long
// after the notify (a lost wakeup), fails the run. The metrics and the
// method in full are in docs/experiments.md ("herd"). The files: options.go
// (Options, defaults, validation), impls.go (the implementations), run.go
// (Plan / Run, the configurations and their metrics), repeat.go (one
// repeat), claims.go.
package herd
