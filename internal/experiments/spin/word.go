package spin

import (
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// procyield is the Go runtime's spin-loop hint: cycles PAUSE instructions
// on amd64 (YIELD on arm64), what sync.Mutex spins with
// (golang/go src/runtime/stubs.go:278-284 at go1.26; its linkname is kept
// for outside callers on purpose, go.dev/issue/67401). Every spin loop of
// this package pauses through it, one hint per look at a word unless the
// strategy says otherwise.
//
//go:linkname procyield runtime.procyield
func procyield(cycles uint32)

// The states of the word a waiter waits on.
const (
	wordEmpty  int32 = 0 // no signal yet; the waiter has not announced a park
	wordSignal int32 = 1 // the waker signalled
	wordParked int32 = 2 // no signal yet; the waiter parks, or is about to
	wordAbort  int32 = 3 // the watchdog released the waiter: its signal was lost
)

// word is the one futex word between a waiter and its waker, on a cache
// line of its own: a lock word, as a mutex's waiter spins on it and parks
// on it.
type word struct {
	_ [64]byte
	v atomic.Int32
	_ [60]byte
	// spurious counts the waiter's futex returns that found the word still
	// parked (a stale wake of the iteration before); the waiter's alone.
	spurious int64
}

// ready reports whether the wait is over (signalled or aborted).
func (w *word) ready() bool { return w.v.Load() != wordEmpty }

// signal is the waker's side: one atomic exchange, and a FUTEX_WAKE only
// when the waiter announced it parks. It reports whether it woke.
//
// No wakeup is lost, whatever the interleaving with park. The waiter
// sleeps only after its compare-and-swap Empty -> Parked succeeded, and
// only inside FUTEX_WAIT(word, Parked), which the kernel enters only if the
// word still reads Parked, compared under the futex hash-bucket lock that
// FUTEX_WAKE takes too. The exchange below is one read-modify-write on the
// same word, so it is ordered with the waiter's CAS one way or the other:
// before it, the CAS fails (the word reads Signal), and the waiter never
// sleeps; after it, the exchange returns Parked and the waker calls
// FUTEX_WAKE. That wake either finds the waiter queued on the word and
// wakes it, or runs before the waiter's FUTEX_WAIT took the bucket lock, in
// which case FUTEX_WAIT reads Signal, not Parked, and returns EAGAIN at
// once. Either way the waiter returns and reads Signal.
func (w *word) signal() (woke bool) {
	if w.v.Swap(wordSignal) == wordParked {
		futexWake(&w.v, 1)
		return true
	}
	return false
}

// park is the waiter's park phase: announce (Empty -> Parked), then sleep
// while the word reads Parked. A failed announce means the signal came
// first. A futex return that finds the word still Parked is a stale wake
// (the waker's FUTEX_WAKE of the iteration before, late) or a signal: the
// loop waits again, comparing in the kernel as before.
func (w *word) park() {
	if !w.v.CompareAndSwap(wordEmpty, wordParked) {
		return
	}
	for {
		futexWait(&w.v, wordParked)
		if w.v.Load() != wordParked {
			return
		}
		w.spurious++
	}
}

// release is the watchdog's: the waiter's word stops being Empty or
// Parked, and whoever sleeps on it is woken.
func (w *word) release() {
	w.v.Store(wordAbort)
	futexWake(&w.v, 1<<30)
}

// gate is a handshake between the waiter and the waker: one side publishes
// an iteration number, the other waits until the gate reaches it. Across
// CPUs the waiting side spins (a PAUSE per look); on one CPU (sleepy) it
// sleeps on the gate's futex word, since a spinner would hold the CPU the
// other side needs to publish.
type gate struct {
	_        [64]byte
	v        atomic.Int32
	sleeping atomic.Int32
	_        [56]byte
}

// publish sets the gate to i (increasing) and wakes the other side if it
// sleeps. The store of v and the load of sleeping here, and the store of
// sleeping and the load of v in await, are sequentially consistent (Go's
// atomics): at least one side sees the other's store, so either await sees
// i and does not sleep, or publish sees sleeping and wakes it; a
// FUTEX_WAIT that starts after the store of i compares v with the old
// value and returns EAGAIN.
func (g *gate) publish(i int32, sleepy bool) {
	g.v.Store(i)
	if sleepy && g.sleeping.Load() != 0 {
		futexWake(&g.v, 1)
	}
}

// await waits until the gate reaches i; false when the watchdog aborted
// the job meanwhile (the gate is then released, see releaseGate).
func (g *gate) await(i int32, sleepy bool, abort *atomic.Bool) bool {
	for {
		cur := g.v.Load()
		if cur >= i {
			return !abort.Load()
		}
		if sleepy {
			g.sleeping.Store(1)
			if g.v.Load() == cur {
				futexWait(&g.v, cur)
			}
			g.sleeping.Store(0)
		} else {
			procyield(1)
		}
	}
}

// releaseGate is the watchdog's: the gate passes every iteration and
// whoever sleeps on it is woken (await then sees the abort).
func (g *gate) releaseGate() {
	g.v.Store(1 << 30)
	futexWake(&g.v, 1<<30)
}
