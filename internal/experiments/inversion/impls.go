package inversion

import (
	"sync"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
)

// Config.Kind values (as parkbench lock's).
const (
	KindGo  = "go-lock"
	KindCgo = "cgo-lock"
)

// mutex is one lock as the three threads use it: Lock names the calling
// thread's kernel TID (the PI futex writes it into the word; the others
// ignore it).
type mutex interface {
	Lock(tid uint32)
	Unlock()
	Free()
}

// impl is one lock implementation.
type impl struct {
	name, kind, summary string
	// pi: the lock inherits priority (the bounded-wait claim's rows).
	pi bool
	// cgo: needs internal/cref.
	cgo     bool
	newLock func() (mutex, error)
}

type piFutex struct{ m futexsync.PIMutex }

func (l *piFutex) Lock(tid uint32) { l.m.LockTID(tid) }
func (l *piFutex) Unlock()         { l.m.Unlock() }
func (l *piFutex) Free()           {}

// plain is a lock that does not care who locks it.
type plain struct {
	m interface {
		Lock()
		Unlock()
	}
	free func()
}

func (l plain) Lock(uint32) { l.m.Lock() }
func (l plain) Unlock()     { l.m.Unlock() }
func (l plain) Free() {
	if l.free != nil {
		l.free()
	}
}

func pthreadLock(pi bool) func() (mutex, error) {
	return func() (mutex, error) {
		newM := cref.NewPthreadMutex
		if pi {
			newM = cref.NewPthreadPIMutex
		}
		m, err := newM()
		if err != nil {
			return nil, err
		}
		return plain{m: m, free: m.Free}, nil
	}
}

func allImpls() []impl {
	return []impl{
		{name: "pi-futex", kind: KindGo, pi: true,
			summary: "a PI mutex on FUTEX_LOCK_PI/FUTEX_UNLOCK_PI (internal/futexsync): the kernel boosts the owner to the top waiter's priority",
			newLock: func() (mutex, error) { return new(piFutex), nil }},
		{name: "pthread-pi", kind: KindCgo, pi: true, cgo: true,
			summary: "glibc pthread_mutex_t with PTHREAD_PRIO_INHERIT through cgo (FUTEX_LOCK_PI on contention)",
			newLock: pthreadLock(true)},
		{name: "std-futex", kind: KindGo,
			summary: "Rust std's futex mutex (internal/futexsync): FUTEX_WAIT/WAKE, no inheritance",
			newLock: func() (mutex, error) { return plain{m: new(futexsync.Mutex)}, nil }},
		{name: "lot", kind: KindGo,
			summary: "parking_lot's Mutex (internal/lot): parks on the thread parker, no inheritance",
			newLock: func() (mutex, error) { return plain{m: new(lot.Mutex)}, nil }},
		{name: "sync", kind: KindGo,
			summary: "Go's sync.Mutex: parks the goroutine in the Go scheduler (a locked thread sleeps on its M's note), no inheritance",
			newLock: func() (mutex, error) { return plain{m: new(sync.Mutex)}, nil }},
		{name: "pthread", kind: KindCgo, cgo: true,
			summary: "glibc pthread_mutex_t, default attributes (PTHREAD_PRIO_NONE), through cgo",
			newLock: pthreadLock(false)},
	}
}

// why says why im does not run here ("" when it does), host why the
// experiment does not.
func (im impl) why(host string) string {
	if host != "" {
		return host
	}
	if im.name != "pthread-pi" && im.name != "pthread" {
		if !futexsync.Supported {
			return "needs Linux futexes"
		}
		return ""
	}
	return driver.Why(cref.LockAvailable)
}

// catalog surveys the host (privilege, CPUs, RT throttling: reads of
// /proc) once, when an implementation's Info is first asked for, not once
// per implementation.
func catalog(force bool) driver.Catalog[impl] {
	host := sync.OnceValue(func() string { return hostWhy(force) })
	return driver.Catalog[impl]{Items: allImpls(), Info: func(im impl) driver.ImplInfo {
		return driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.why(host())}
	}}
}

// Impls lists every lock for help and `parkbench list`; Why says why the
// experiment does not run here when it cannot (OS, privilege, CPUs, RT
// throttling).
func Impls() []driver.ImplInfo { return catalog(false).Infos() }

// ImplNames lists the lock names.
func ImplNames() []string { return catalog(false).Names() }
