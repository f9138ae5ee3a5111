package pingpong

import (
	"sync"
)

// Latency between plain goroutines (--participants=goroutines): the same
// ping-pong (Config.Goroutines) on two goroutines that are not locked to their
// threads and not pinned, under the configuration's GOMAXPROCS. A wake is
// then the Go scheduler's: the waker's chan send, Cond.Signal or Mutex
// Unlock ends in goready (Go runtime chan.go send, sema.go semrelease1),
// proc.go ready puts the woken goroutine in the waker's runnext (runqput,
// next=true) and calls wakep, which starts a spinning M on an idle P
// (startm, a futexwakeup of an idle thread) only when there is an idle P
// and no M already spinning. With GOMAXPROCS = 1 there is never an idle
// P: the woken goroutine runs when the waker blocks, on the same thread.

// semMech is mutex-sema and rwmutex-sema (MutexSema, RWMutexSema): side
// me's lock is held by its peer from the start; wait(me) Locks it (blocks
// until the peer's Unlock) and keeps it, then hands it back to the peer's
// ownership by leaving it locked: the next Unlock is the peer's wake for
// the next trip.
//
// Why no wake is lost: a Mutex is a semaphore of one. The waker's Unlock
// after its flag store either finds the waiter queued in semacquire and
// readies it, or leaves the mutex unlocked so that the waiter's Lock
// takes it at once. The flag loop is kept for the protocol's invariant
// (the wait returns only once the flag is set); the lock alone orders it,
// since Unlock happens after the flag store and Lock before the load.
type semMech struct {
	plain
	mu [2]sync.Locker
}

// MutexSema is mutex-sema's mechanism: a sync.Mutex per side.
func MutexSema(pp *pingpong) mechanism { return newSemMech(pp, false) }

// RWMutexSema is rwmutex-sema's: a sync.RWMutex's write lock per side.
func RWMutexSema(pp *pingpong) mechanism { return newSemMech(pp, true) }

func newSemMech(pp *pingpong, rw bool) *semMech {
	m := &semMech{plain: plain{pp}}
	for i := range m.mu {
		if rw {
			m.mu[i] = new(sync.RWMutex)
		} else {
			m.mu[i] = new(sync.Mutex)
		}
		m.mu[i].Lock() // held on the waiter's behalf until the first wake
	}
	return m
}

func (m *semMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	noSleep := f.Load() != 0
	m.mu[me].Lock()
	return noSleep
}

func (m *semMech) wake(peer int) { m.mu[peer].Unlock() }

// wgMech is waitgroup (WaitGroup): side me waits on wg[me], which holds a
// count of 1 from the start; the peer's Done wakes it, and the waiter Adds
// 1 back before it answers (WaitGroup reuse: a new Add only after Wait has
// returned, sync/waitgroup.go), so the count is 1 again before the peer
// can send the next wake.
//
// Why no wake is lost: Done after the flag store either releases the
// waiter queued in Wait (semrelease) or leaves the count at 0, and Wait
// then returns at once.
type wgMech struct {
	plain
	wg [2]sync.WaitGroup
}

// WaitGroup is waitgroup's mechanism: a sync.WaitGroup per side.
func WaitGroup(pp *pingpong) mechanism {
	m := &wgMech{plain: plain{pp}}
	m.wg[0].Add(1)
	m.wg[1].Add(1)
	return m
}

func (m *wgMech) wait(me int) bool {
	noSleep := m.pp.slots[me].flag.Load() != 0
	m.wg[me].Wait()
	// Re-armed before the answer (pingpong.run sends only after wait
	// returns), so the peer's next Done finds a count of 1.
	m.wg[me].Add(1)
	return noSleep
}

func (m *wgMech) wake(peer int) { m.wg[peer].Done() }
