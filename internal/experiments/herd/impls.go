package herd

import (
	"slices"
	"sync"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
)

// primitive is one condition variable with its mutex, as a Go-side herd
// implementation uses them. Lock/Unlock/Wait follow the usual contract (Wait
// is called with the mutex held and returns with it held; callers loop on
// their predicate). held says whether the notifier holds the mutex while it
// notifies.
type primitive interface {
	Lock()
	Unlock()
	Wait()
	NotifyAll(held bool) notifyOut
	NotifyOne(held bool) notifyOut
}

// notifyOut is what one notify call reported. ret is the call's return
// value (-1 when the API returns nothing); unparked / requeued are the
// counts the implementation knows (-1 when it does not).
type notifyOut struct {
	ret, unparked, requeued int
}

func (a *notifyOut) add(b notifyOut) {
	a.ret = addKnown(a.ret, b.ret)
	a.unparked = addKnown(a.unparked, b.unparked)
	a.requeued = addKnown(a.requeued, b.requeued)
}

func addKnown(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

// implSpec is one --impl of the herd.
type implSpec struct {
	name    string
	summary string
	// kind is results.Config.Kind: "thread" (locked OS threads),
	// "goroutine" (sync), "c-reference" (pthread: C threads).
	kind string
	// unavailable says why the implementation does not run here (nil: it does).
	unavailable func() error
	// newPrim builds the primitives of one repeat (Go implementations).
	newPrim func() primitive
	// goroutines: waiters are plain goroutines (sync), not locked threads.
	goroutines bool
	// c: the whole repeat runs in C (pthread).
	c bool
	// plugin: a plugin's lock and condvar (C code; a Go program's, also
	// from internal/ext, is Go code like sync's).
	plugin bool
	// onGoroutines: a thread implementation run between plain goroutines
	// (--participants=goroutines; goroutines is then set too).
	onGoroutines bool
}

// allImpls are the implementations in --impl order.
var allImpls = []implSpec{
	{
		name:    "lot",
		summary: "parking_lot Condvar + Mutex (lot): notify_all requeues onto the mutex (RequeueAll when held, UnparkOneRequeueRest when not)",
		kind:    "thread",
		newPrim: func() primitive { return &lotPrim{} },
	},
	{
		name:    "lot-wakeall",
		summary: "the same lot Mutex and parker, but notify_all wakes every waiter (UnparkAll; not upstream): what the requeue buys",
		kind:    "thread",
		newPrim: func() primitive { return &lotPrim{wakeAll: true} },
	},
	{
		name:        "futex-broadcast",
		summary:     "Rust std's Linux futex Condvar + futex Mutex: notify_all = counter++ and FUTEX_WAKE(INT_MAX) (the herd)",
		kind:        "thread",
		unavailable: driver.NeedFutex,
		newPrim:     func() primitive { return &futexPrim{} },
	},
	{
		name:        "futex-requeue",
		summary:     "futex Condvar with FUTEX_CMP_REQUEUE onto the futex Mutex, marked contended first; requeued waiters relock contended",
		kind:        "thread",
		unavailable: driver.NeedFutex,
		newPrim:     func() primitive { return &requeuePrim{} },
	},
	{
		name:        "pthread",
		summary:     "glibc pthread_cond_broadcast + pthread_mutex, C threads (pthread_create), the whole repeat in C",
		kind:        "c-reference",
		unavailable: cref.HerdAvailable,
		c:           true,
	},
	{
		name:       "sync",
		summary:    "Go sync.Cond.Broadcast + sync.Mutex between plain goroutines (goroutine level, GOMAXPROCS = NumCPU)",
		kind:       "goroutine",
		newPrim:    func() primitive { return newSyncPrim() },
		goroutines: true,
	},
}

// catalog is the herd's implementations.
func catalog() driver.Catalog[implSpec] {
	return driver.Catalog[implSpec]{Items: append(slices.Clone(allImpls), extImpls()...), Info: implSpec.info}
}

// extImpls are the mutexes with a condvar from outside the tree
// (internal/ext), waiters on locked threads. notify_all's return value is
// the library's count (woken plus moved onto the mutex) when it gives one;
// the split is unknown.
func extImpls() []implSpec {
	var out []implSpec
	for _, x := range ext.All() {
		if x.NewLock == nil || x.NewCond == nil {
			continue
		}
		newLock, newCond := x.NewLock, x.NewCond
		out = append(out, implSpec{name: x.Name, kind: "thread", plugin: x.C != nil, summary: x.Summary,
			newPrim: func() primitive {
				m := newLock()
				return &extPrim{Locker: m, c: newCond(m)}
			}})
	}
	return out
}

// extPrim is an ext mutex and condvar.
type extPrim struct {
	ext.Locker
	c ext.Cond
}

func (p *extPrim) Wait() { p.c.Wait() }
func (p *extPrim) NotifyAll(bool) notifyOut {
	if cc, ok := p.c.(ext.CountingCond); ok {
		return notifyOut{ret: cc.BroadcastCount(), unparked: -1, requeued: -1}
	}
	p.c.Broadcast()
	return notifyOut{ret: -1, unparked: -1, requeued: -1}
}
func (p *extPrim) NotifyOne(bool) notifyOut {
	if cc, ok := p.c.(ext.CountingCond); ok {
		return notifyOut{ret: cc.SignalCount(), unparked: -1, requeued: -1}
	}
	p.c.Signal()
	return notifyOut{ret: -1, unparked: -1, requeued: -1}
}

func (im implSpec) info() driver.ImplInfo {
	return driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: driver.Why(im.unavailable)}
}

// ImplNames returns every --impl name of the herd, in order.
func ImplNames() []string { return catalog().Names() }

// Impls describes every herd implementation.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// lotPrim: lot.Condvar + lot.Mutex (whose Lock and Unlock it has).
type lotPrim struct {
	lot.Mutex
	c       lot.Condvar
	wakeAll bool
}

func (p *lotPrim) Wait() { p.c.Wait(&p.Mutex) }
func (p *lotPrim) NotifyAll(bool) notifyOut {
	if p.wakeAll {
		n := p.c.NotifyAllWake()
		return notifyOut{ret: n, unparked: n, requeued: 0}
	}
	r := p.c.NotifyAllResult()
	return notifyOut{ret: r.UnparkedThreads + r.RequeuedThreads, unparked: r.UnparkedThreads, requeued: r.RequeuedThreads}
}

// NotifyOne: lot's notify_one returns a bool (woken or requeued), not the
// split; lot-wakeall has no notify_one of its own and uses lot's.
func (p *lotPrim) NotifyOne(bool) notifyOut {
	if p.c.NotifyOne() {
		return notifyOut{ret: 1, unparked: -1, requeued: -1}
	}
	return notifyOut{ret: 0, unparked: -1, requeued: -1}
}

// futexPrim: std's futex Condvar + Mutex.
type futexPrim struct {
	futexsync.Mutex
	c futexsync.Condvar
}

func (p *futexPrim) Wait() { p.c.Wait(&p.Mutex) }

// NotifyAll: std's notify_all returns (); unparked is the kernel's count of
// threads FUTEX_WAKE woke.
func (p *futexPrim) NotifyAll(bool) notifyOut {
	return notifyOut{ret: -1, unparked: p.c.NotifyAll(), requeued: 0}
}
func (p *futexPrim) NotifyOne(bool) notifyOut {
	return notifyOut{ret: -1, unparked: p.c.NotifyOne(), requeued: 0}
}

// requeuePrim: the CMP_REQUEUE condvar on the futex Mutex.
type requeuePrim struct {
	futexsync.Mutex
	c futexsync.RequeueCondvar
}

func (p *requeuePrim) Wait() { p.c.Wait(&p.Mutex) }
func (p *requeuePrim) NotifyAll(held bool) notifyOut {
	if held {
		return kernelSplit(p.c.NotifyAllLocked(&p.Mutex))
	}
	return kernelSplit(p.c.NotifyAll(&p.Mutex))
}
func (p *requeuePrim) NotifyOne(held bool) notifyOut {
	if held {
		return kernelSplit(p.c.NotifyOneLocked(&p.Mutex))
	}
	return kernelSplit(p.c.NotifyOne(&p.Mutex))
}

// kernelSplit is FUTEX_CMP_REQUEUE's woken / requeued split of a notify
// whose API returns nothing.
func kernelSplit(woken, requeued int) notifyOut {
	return notifyOut{ret: -1, unparked: woken, requeued: requeued}
}

// syncPrim: sync.Cond + sync.Mutex.
type syncPrim struct {
	sync.Mutex
	c *sync.Cond
}

func newSyncPrim() *syncPrim {
	p := &syncPrim{}
	p.c = sync.NewCond(&p.Mutex)
	return p
}

func (p *syncPrim) Wait() { p.c.Wait() }
func (p *syncPrim) NotifyAll(bool) notifyOut {
	p.c.Broadcast()
	return notifyOut{ret: -1, unparked: -1, requeued: -1}
}
func (p *syncPrim) NotifyOne(bool) notifyOut {
	p.c.Signal()
	return notifyOut{ret: -1, unparked: -1, requeued: -1}
}
