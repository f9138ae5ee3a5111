package cref

// The C side of parkbench wake (wake.c, wake.h): N C threads blocked on a
// futex word or a pthread condvar, the timed wake of them all from the
// calling thread, and the C producer/consumer. The types are here for every
// build; wake_cgo.go runs them (Linux with cgo), wake_other.go says why not.

// WakeKind is what the C waiters block on.
type WakeKind int

// The waiter kinds (wake.h PBW_*).
const (
	WaitCond        WakeKind = 0 // pthread_cond_wait on one condvar and mutex
	WaitFutex       WakeKind = 1 // FUTEX_WAIT_PRIVATE on one word
	WaitFutexShared WakeKind = 2 // FUTEX_WAIT (shared) on one word
)

// WakeOp is the timed wake.
type WakeOp int

// The timed operations (wake.h PBW_OP_*).
const (
	OpBroadcast WakeOp = 0 // one pthread_cond_broadcast
	OpSignal    WakeOp = 1 // N x pthread_cond_signal
	OpWake      WakeOp = 2 // FUTEX_WAKE(k) until all are woken
	OpRequeue   WakeOp = 3 // FUTEX_CMP_REQUEUE(wake 0, requeue k) until all moved; then an untimed wake
)

// WakeResult is what one timed wake measured.
type WakeResult struct {
	TotalNs  int64 // CLOCK_MONOTONIC before the first call -> after the last
	Calls    int
	Done     int  // threads woken or requeued as the calls reported; -1: the API reports none
	TimedOut bool // the bound passed before every waiter was reached: a lost waiter
}

// PCResult is one producer/consumer round.
type PCResult struct {
	ElapsedNs int64 // the producer's first push -> the consumer's last pop
	Switches  int64 // both threads' RUSAGE_THREAD context switches
	Waits     int64 // pthread_cond_wait calls, both sides
}
