package cref

// Mode is the wake mechanism of the C reference.
type Mode int

// Modes; the values match CREF_FUTEX / CREF_SPIN in cref.h.
const (
	Futex Mode = 0 // FUTEX_WAIT_PRIVATE / FUTEX_WAKE_PRIVATE
	Spin  Mode = 1 // busy wait on the flag
)

// Result is what one round measured, both sides together.
type Result struct {
	// Samples are the 2n one-way latencies in ns: side 0's (B->A) first.
	Samples []int64
	// NoSleep counts waits that returned without sleeping.
	NoSleep uint64
	// ThreadCsw is the sum of both threads' RUSAGE_THREAD context-switch
	// deltas over the round, read inside each thread.
	ThreadCsw int64
	// SameCPU of CPUSamples sampled wakes had waker and woken on one CPU.
	SameCPU, CPUSamples int64
	// Interrupted: the round was stopped (RoundContext) before its n
	// round trips; the other fields are empty.
	Interrupted bool
}
