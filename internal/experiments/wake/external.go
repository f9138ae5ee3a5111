package wake

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/parkers"
)

// extImpls are the implementations from outside the tree (internal/ext):
// a parker as n waiters each parked on its own parker, a wake call of k
// unparking k of them one by one (wake, wake-parallel); a mutex with a
// condvar as the std row's condvar group (notify_one per waiter or
// notify_all). An implementation with both is the condvar group.
func extImpls() []implSpec {
	var out []implSpec
	for _, x := range ext.All() {
		im := implSpec{name: x.Name, kind: "thread", summary: x.Summary}
		if x.NewLock != nil && x.NewCond != nil {
			newLock, newCond := x.NewLock, x.NewCond
			im.wakeK = oneOrAll
			im.newGroup = goGroup(func(n int, cpus []int) group { return newExtCondGroup(n, cpus, newLock, newCond) })
		} else if b, ok := x.Backend(); ok {
			newThread := b.NewThread
			im.wakeK, im.parallel = anyK, true
			im.newGroup = goGroup(func(n int, cpus []int) group { return newParkerGroup(n, cpus, newThread) })
		} else {
			continue
		}
		out = append(out, im)
	}
	return out
}

func newExtCondGroup(n int, cpus []int, newLock func() ext.Locker, newCond func(ext.Locker) ext.Cond) group {
	m := newLock()
	c := newCond(m)
	g := &condGroup{lock: m.Lock, unlock: m.Unlock, wait: c.Wait}
	g.notify = func(k int, _ bool) int {
		cc, counts := c.(ext.CountingCond)
		switch {
		case k == 1 && counts:
			return cc.SignalCount()
		case counts:
			return cc.BroadcastCount()
		case k == 1:
			c.Signal()
		default:
			c.Broadcast()
		}
		return -1
	}
	startCond(g, n, cpus, false)
	return g
}

// parkerGroup is n waiters, each with a parker of its own (made on its
// thread) and a flag. A waiter arms its parker, looks at its flag, parks;
// a wake sets the flag and then unparks: the unpark comes after the arming
// whenever the look missed the flag, so no wake is lost (the latency
// ping-pong's protocol, internal/pingpong/mech.go).
type parkerGroup struct {
	*waiterSet
	ps    []parkers.ThreadParker
	flags []atomic.Uint32
	// made counts the waiters whose parker is published in ps.
	made atomic.Int64
	next atomic.Int64 // the next waiter a wake call takes
}

func newParkerGroup(n int, cpus []int, newThread func() parkers.ThreadParker) group {
	g := &parkerGroup{waiterSet: newWaiters(n, false), ps: make([]parkers.ThreadParker, n), flags: make([]atomic.Uint32, n)}
	g.start(cpus, func(i int) {
		p := newThread()
		g.ps[i] = p
		g.made.Add(1)
		g.countIn()
		for g.flags[i].Load() == 0 {
			p.PreparePark()
			if g.flags[i].Load() == 0 {
				p.Park()
			}
		}
	})
	return g
}

// ready counts a waiter once its parker is published (made orders the
// store of ps[i] before a waker's read of it).
func (g *parkerGroup) ready() int { return min(g.countedIn(), int(g.made.Load())) }

// wakeCall wakes the next k waiters (0: all that are left), one unpark
// each, and returns how many it woke. Parallel wakers each take their own
// waiters (next is claimed atomically).
func (g *parkerGroup) wakeCall(k int) int {
	if k <= 0 {
		k = g.n
	}
	woke := 0
	for ; woke < k; woke++ {
		i := int(g.next.Add(1) - 1)
		if i >= g.n {
			break
		}
		g.flags[i].Store(1)
		g.ps[i].UnparkLock().Unpark()
	}
	return woke
}

func (g *parkerGroup) fire(_ string, k int, per []int64, bound time.Duration) fireResult {
	return timedLoop(g.n, k, g.wakeCall, per, bound)
}

func (g *parkerGroup) close() bool {
	return g.closeWith(func() {
		// A waiter still starting publishes its parker first.
		for t0 := time.Now(); g.made.Load() < int64(g.n) && time.Since(t0) < releaseBound; {
			time.Sleep(time.Millisecond)
		}
		if g.made.Load() < int64(g.n) {
			return
		}
		g.wakeCall(0)
	})
}
