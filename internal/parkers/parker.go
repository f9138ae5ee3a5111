package parkers

import "time"

// ThreadParker is one thread's parker, as parking_lot_core's ThreadParkerT.
// A ThreadParker belongs to one thread: only that thread calls PreparePark,
// Park, ParkUntil and TimedOut. UnparkLock may be called by any thread.
type ThreadParker interface {
	// PreparePark arms the parker: a later Park blocks until an UnparkLock
	// that happens after this call. Called by the owner before it is queued.
	// Its store is sequentially consistent, ordered before the caller's
	// later loads: a caller with no queue lock may arm, then look at its
	// own condition, then Park (the latency ping-pong does), and a waker
	// that changes the condition before UnparkLock is not missed.
	PreparePark()
	// Park blocks until UnparkLock has been called after PreparePark.
	// It never returns spuriously.
	Park()
	// ParkUntil blocks until unparked or until deadline passes; it reports
	// true if it was unparked and false if it timed out.
	ParkUntil(deadline time.Time) bool
	// TimedOut is called under the queue lock after ParkUntil returned false.
	// It reports true if the thread really timed out, false if an unpark
	// raced in after the timeout (the thread must then treat itself as
	// unparked: the waker already dequeued it).
	TimedOut() bool
	// UnparkLock is called under the queue lock. It marks the thread as
	// unparked and returns the handle that performs the wake once the queue
	// lock has been released.
	UnparkLock() UnparkHandle
}

// UnparkHandle performs the wake after the queue lock is released.
type UnparkHandle interface {
	Unpark()
}

// TokenParker is a parker with a token (crossbeam Parker, std thread::park):
// Unpark may precede Park; one pending token makes the next Park return at
// once. Tokens do not accumulate.
type TokenParker interface {
	// Park blocks until a token is available, and consumes it.
	Park()
	// ParkDeadline blocks until a token is available or the deadline
	// passes. It reports whether it returned because of a token (std's
	// futex parker cannot tell a timeout from a spurious wake; see its
	// documentation).
	ParkDeadline(deadline time.Time) bool
	// Unpark makes a token available, waking the parked thread if any.
	// Any thread may call it.
	Unpark()
}

// Kind says what level a backend works at.
type Kind string

const (
	// KindThread is a ThreadParker that blocks the OS thread (or spins it).
	KindThread Kind = "thread"
	// KindToken is a TokenParker that blocks the OS thread.
	KindToken Kind = "token"
	// KindGoroutine is a Go-native mechanism (channel, sync.Cond): it parks
	// the goroutine in the Go scheduler, not the thread in the kernel.
	KindGoroutine Kind = "goroutine"
)

// WaitCounter is implemented by the kernel-sleeping backends. It counts, for
// the owner thread, the waits that really blocked and the ones that returned
// at once without sleeping (already unparked, or the kernel refused to sleep
// because the word had changed: EAGAIN). Each backend's WaitCounts says
// exactly what it counts. The counters are plain fields written only by the
// owner thread: read them from the owner, or after joining it.
type WaitCounter interface {
	WaitCounts() (blocked, immediate uint64)
}
