package cref

// The C side of parkbench spin (spin.c, spin.h): glibc's adaptive mutex
// between a waiter and a waker on two C threads. The types are here for
// every build; spin_cgo.go runs them (Linux with cgo), spin_other.go says
// why not.

// SpinConfig is one run of the C waiter and waker.
type SpinConfig struct {
	WaiterCPU, WakerCPU int // -1: unpinned
	// Sleepy: the handshakes sleep on futexes (both threads on one CPU).
	Sleepy bool
	GapNs  int64
	Warmup int
	N      int
}

// SpinSample is one measured wait (spin.h pbs_sample).
type SpinSample struct {
	Lat, Late, CPU int64
	Slept          bool
	Csw            int32
}
