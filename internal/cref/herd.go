package cref

// HerdConfig is one repeat of the C herd (E6's pthread variant).
type HerdConfig struct {
	N           int
	HoldNs      int64
	OneLoop     bool  // N x pthread_cond_signal instead of one broadcast
	LockHeld    bool  // notify with the mutex held
	NotifierCPU int   // -1: unpinned
	WaiterCPUs  []int // nil: unpinned; else one CPU (or -1) per waiter
}

// HerdResult is what one repeat measured. Times are CLOCK_MONOTONIC ns.
type HerdResult struct {
	T0Ns         int64 // right before the notify
	NotifierCPU  int
	ProcCsw      int64 // RUSAGE_SELF switches from before the notify to after the last join
	NotifierCsw  int64 // the notifier's RUSAGE_THREAD switches over the same window
	NotifierPinE int   // pthread_setaffinity_np result (0: ok)
	Waiters      []HerdWaiter
}

// HerdWaiter is one C waiter's record.
type HerdWaiter struct {
	Tid          int
	AcqNs, RelNs int64 // hold start (right after lock) and end (right before unlock)
	CPU          int   // sched_getcpu right after acquiring
	// Csw is RUSAGE_THREAD nvcsw+nivcsw from right before its wait (under
	// the mutex) to right after its unlock.
	Csw          int64
	Invol        int64 // the involuntary (preempted) part of Csw
	WaitReturns  int64 // pthread_cond_wait returns
	Acquisitions int64 // times it left the wait loop holding the mutex
	PinErr       int
}
