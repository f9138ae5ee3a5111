package latency

import (
	"slices"
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/experiments/driver"
)

// Latency between plain goroutines (--participants=goroutines): the same
// ping-pong (pingpong.go) on two goroutines that are not locked to their
// threads and not pinned, under the configuration's GOMAXPROCS. A wake is
// then the Go scheduler's: the waker's chan send, Cond.Signal or Mutex
// Unlock ends in goready (Go runtime chan.go send, sema.go semrelease1),
// proc.go ready puts the woken goroutine in the waker's runnext (runqput,
// next=true) and calls wakep, which starts a spinning M on an idle P
// (startm, a futexwakeup of an idle thread) only when there is an idle P
// and no M already spinning. With GOMAXPROCS = 1 there is never an idle
// P: the woken goroutine runs when the waker blocks, on the same thread.

// Goroutine-only implementations: sync primitives used as a semaphore,
// through the runtime's semaphores (sema.go).
const (
	// ImplMutexSema: a sync.Mutex held by the waiter's peer; the wake is
	// its Unlock (semrelease1), the wait a Lock (semacquire1).
	ImplMutexSema = "mutex-sema"
	// ImplRWMutexSema: the same with a sync.RWMutex's write lock.
	ImplRWMutexSema = "rwmutex-sema"
	// ImplWaitGroup: the wait is WaitGroup.Wait on a count of 1, the wake
	// its Done.
	ImplWaitGroup = "waitgroup"
	// KindGoroutine is Config.Kind of the goroutine-only rows (chan and
	// cond are kind goroutine too, through their parkers.Backend).
	KindGoroutine = "goroutine"
)

// goroutineImpls are the implementations only goroutine participants run
// (a sync.Mutex unlocked by another thread is legal Go, but on two locked
// threads it only repeats chan's thread hand-off).
func goroutineImpls() []e12Impl {
	return []e12Impl{
		{name: ImplMutexSema, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.Mutex as a binary semaphore between goroutines: the waiter Locks, the peer's Unlock wakes it (runtime sema.go semrelease1, no handoff before starvation mode)"},
		{name: ImplRWMutexSema, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.RWMutex's write lock as a binary semaphore between goroutines (its writer semaphore, sema.go)"},
		{name: ImplWaitGroup, kind: KindGoroutine, sleeps: true, goroutinesOnly: true,
			summary: "sync.WaitGroup between goroutines: Wait on a count of 1, the peer's Done wakes it (sema.go semrelease)"},
	}
}

// threadsOnly is why im cannot run between plain goroutines ("" when it
// can): a thread parker blocks the thread and wakes that thread, and a
// goroutine does not own one; C runs in C threads; a busy wait between
// goroutines measures the scheduler's preemption (10 ms), not a wake.
func threadsOnly(im e12Impl) string {
	switch {
	case im.kind == KindCRef:
		return "the C reference runs in C threads, outside the Go scheduler"
	case im.busy:
		return "busy waiting on goroutines gives the P up only when preempted (10 ms), which is what it would measure"
	case im.name == ImplLot, im.kind == KindGoroutine, im.goroutinesOnly:
		return ""
	}
	return "it parks and wakes an OS thread, which needs a participant locked to its thread (runtime.LockOSThread)"
}

// threadsOnlyWhy is goroutinesOnly's reason under threads.
const goroutinesOnlyWhy = "a goroutine-only mechanism: run it with goroutines as participants"

// participantCatalog is latency's implementations for participants: under
// threads, every one of catalog's; under goroutines the same names, those
// that need a locked thread with their reason, then the goroutine-only
// ones.
func participantCatalog(participants string) driver.Catalog[e12Impl] {
	c := catalog()
	if participants == driver.Goroutines {
		c.Items = append(c.Items, goroutineImpls()...)
		return driver.ForParticipants(c, participants, threadsOnly)
	}
	return c
}

// GoroutineImpls describes the implementations latency runs only between
// goroutines (Impls lists them last, for `parkbench list` and the names a
// plugin may not take).
func GoroutineImpls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range goroutineImpls() {
		info := im.info()
		info.Summary = "--participants=goroutines only: " + info.Summary
		info.GoroutinesOnly = true
		out = append(out, info)
	}
	return out
}

// semMech is mutex-sema and rwmutex-sema: side me's lock is held by its
// peer from the start; wait(me) Locks it (blocks until the peer's
// Unlock) and keeps it, then hands it back to the peer's ownership by
// leaving it locked: the next Unlock is the peer's wake for the next trip.
//
// Why no wake is lost: a Mutex is a semaphore of one. The waker's Unlock
// after its flag store either finds the waiter queued in semacquire and
// readies it, or leaves the mutex unlocked so that the waiter's Lock
// takes it at once. The flag loop is kept for the protocol's invariant
// (the wait returns only once the flag is set); the lock alone orders it,
// since Unlock happens after the flag store and Lock before the load.
type semMech struct {
	pp *pingpong
	mu [2]sync.Locker
}

func newSemMech(pp *pingpong, rw bool) *semMech {
	m := &semMech{pp: pp}
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

func (m *semMech) setup(int) {}

func (m *semMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	noSleep := f.Load() != 0
	m.mu[me].Lock()
	return noSleep
}

func (m *semMech) wake(peer int) { m.mu[peer].Unlock() }

func (m *semMech) immediate() uint64 { return 0 }

// wgMech is waitgroup: side me waits on wg[me], which holds a count of 1
// from the start; the peer's Done wakes it, and the waiter Adds 1 back
// before it answers (WaitGroup reuse: a new Add only after Wait has
// returned, sync/waitgroup.go), so the count is 1 again before the peer
// can send the next wake.
//
// Why no wake is lost: Done after the flag store either releases the
// waiter queued in Wait (semrelease) or leaves the count at 0, and Wait
// then returns at once.
type wgMech struct {
	pp *pingpong
	wg [2]sync.WaitGroup
}

func newWGMech(pp *pingpong) *wgMech {
	m := &wgMech{pp: pp}
	m.wg[0].Add(1)
	m.wg[1].Add(1)
	return m
}

func (m *wgMech) setup(int) {}

func (m *wgMech) wait(me int) bool {
	noSleep := m.pp.slots[me].flag.Load() != 0
	m.wg[me].Wait()
	// Re-armed before the answer (pingpong.run sends only after wait
	// returns), so the peer's next Done finds a count of 1.
	m.wg[me].Add(1)
	return noSleep
}

func (m *wgMech) wake(peer int) { m.wg[peer].Done() }

func (m *wgMech) immediate() uint64 { return 0 }

// goroutineMech is the mechanism of a goroutine-only implementation (nil
// for the others: openRunner builds those).
func goroutineMech(name string, pp *pingpong) mechanism {
	switch name {
	case ImplMutexSema:
		return newSemMech(pp, false)
	case ImplRWMutexSema:
		return newSemMech(pp, true)
	case ImplWaitGroup:
		return newWGMech(pp)
	}
	return nil
}

// resolveFor reads the implementation names for one kind of participants
// (all: the participants of every kind). A goroutine-only name given for a
// run with threads too is left to the goroutines (a note says so); with
// threads alone it is refused with the reason.
func (p *latencyPlan) resolveFor(part string, all []string) (driver.Selection[e12Impl], error) {
	names := p.o.Impls
	if part == driver.Threads {
		names = nil
		for _, n := range p.o.Impls {
			if !slices.ContainsFunc(goroutineImpls(), func(im e12Impl) bool { return im.name == n }) {
				names = append(names, n)
				continue
			}
			if !slices.Contains(all, driver.Goroutines) {
				return driver.Selection[e12Impl]{}, driver.Bad("Impls", "implementation %q is %s", n, goroutinesOnlyWhy)
			}
			p.notes = append(p.notes, n+": goroutines only (not run between threads)")
		}
		if len(names) == 0 && len(p.o.Impls) > 0 {
			return driver.Selection[e12Impl]{}, nil
		}
	}
	sel, err := participantCatalog(part).Resolve("Impls", names)
	if err != nil {
		return sel, err
	}
	if part == driver.Goroutines {
		p.warnings = append(p.warnings, driver.CollapseThreadsOnly(sel.Warnings)...)
	} else {
		p.warnings = append(p.warnings, sel.Warnings...)
	}
	p.notes = append(p.notes, sel.Notes...)
	return sel, nil
}

// planGoroutines adds the goroutine configurations: each implementation
// once per GOMAXPROCS (no placement: plain goroutines are not pinned; no
// gap: the gap is a sleep of the waker's own thread, and a goroutine has
// none).
func (p *latencyPlan) planGoroutines(sel driver.Selection[e12Impl], gaps []time.Duration, procs []int, sweep bool) {
	if slices.ContainsFunc(gaps, func(g time.Duration) bool { return g > 0 }) {
		p.warnings = append(p.warnings, "goroutines: gaps above 0 not run (the gap is a sleep of the waker's own thread; a plain goroutine has none)")
	}
	for _, im := range sel.Items {
		for _, pr := range procs {
			p.configs = append(p.configs, latencyConfig{impl: im, placement: driver.Unpinned, warmup: p.o.Warmup, n: p.o.Iterations, rounds: p.o.Rounds,
				cpus: [2]int{-1, -1}, participants: driver.Goroutines, procs: pr, sweep: sweep})
		}
	}
}

func participantsParam(p string) string {
	if p == "" {
		return driver.Threads
	}
	return p
}

// underProcs runs fn under the configuration's GOMAXPROCS (the run's when
// it has none) and puts the previous value back after it.
func (cr *configRun) underProcs(fn func() error) error {
	_, err := driver.WithProcs(cr.c.procs, fn)
	return err
}
