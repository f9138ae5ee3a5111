package lock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/ext"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Config.Kind values.
const (
	KindGo   = "go-lock"
	KindCgo  = "cgo-lock"
	KindC    = "c-reference"
	KindSpin = "spin-lock"
)

// impl is one lock implementation.
type impl struct {
	name, kind, summary string
	why                 string // "" when available
	c                   bool   // the loop runs in C threads (internal/cref)
	// run does one timed run; uncontended is one thread's lock+unlock
	// pair in ns (the fastest of uncBatches batches of uncIters pairs).
	run         func(ctx context.Context, sp spec) (*raw, error)
	uncontended func() float64
	// rw does one timed --rwlock run (rwlock implementations only).
	rw func(ctx context.Context, sp rwSpec) (*rwRaw, error)
	// parker is the backend under lot for lot@PARKER ("" otherwise).
	parker parkers.Backend
	// goroutines: the loop runs on plain goroutines (goroutines.go).
	goroutines bool
	// plugin: a plugin's mutex from Go threads (its unlock must come from
	// the thread that locked, include/parkbench.h).
	plugin bool
	// loop says which C loop a plugin's C row runs for a pattern and a
	// number of locks (ext.LoopOwn or ext.LoopFuncPointers; nil for the
	// other rows): the result's "loop" parameter.
	loop func(p cref.LockPattern, locks int) string
}

// goImpl builds a Go implementation over lock type M.
func goImpl[M any, PM interface {
	*M
	locker
}](name, kind, summary string, init func(*M) error, free func(*M)) impl {
	run := func(ctx context.Context, sp spec) (*raw, error) { return goRun[M, PM](ctx, sp, init, free) }
	unc := func() float64 { return goUncontended[M, PM](init, free) }
	return impl{name: name, kind: kind, summary: summary, run: run, uncontended: unc}
}

// locker is what the loop needs of a lock.
type locker interface {
	Lock()
	Unlock()
}

// emptyLock is the harness floor's lock: Lock and Unlock return at once.
// The loop calls them as it calls every Go lock's, through the generic
// dictionary, so what the loop costs around a lock is what remains.
type emptyLock struct{}

func (*emptyLock) Lock()   {}
func (*emptyLock) Unlock() {}

// lotFair is lot.Mutex released with UnlockFair every time.
type lotFair struct{ lot.Mutex }

func (m *lotFair) Unlock() { m.Mutex.UnlockFair() }

// pthreadLock is glibc's pthread_mutex_t through cgo: one crossing per
// Lock and per Unlock.
type pthreadLock struct{ *cref.PthreadMutex }

var pthreadInit, pthreadFree = cgoLock(cref.NewPthreadMutex, func(m *pthreadLock) **cref.PthreadMutex { return &m.PthreadMutex })

// cgoLock is the init and free of W, a wrapper of the cref lock (a C lock
// through cgo) that field points to: init makes it with mk, free frees it.
func cgoLock[W any, L interface{ Free() }](mk func() (L, error), field func(*W) *L) (init func(*W) error, free func(*W)) {
	init = func(m *W) (err error) {
		*field(m), err = mk()
		return err
	}
	return init, func(m *W) { (*field(m)).Free() }
}

// spinLock is test-and-test-and-set: try the swap only when a plain load
// saw the lock free; while it is taken, re-read it with a relax between
// reads, doubling the relax up to 1024 iterations (bounded exponential
// backoff). parkers.CPURelax is an atomic load, not x86 PAUSE (Go has
// none for user code): the C spin lock's relax is the real pause.
type spinLock struct{ w atomic.Uint32 }

func (l *spinLock) Lock() {
	backoff := 1
	for {
		if l.w.Load() == 0 && l.w.Swap(1) == 0 {
			return
		}
		for l.w.Load() != 0 {
			parkers.CPURelax(backoff)
			if backoff < 1024 {
				backoff <<= 1
			}
		}
	}
}

func (l *spinLock) Unlock() { l.w.Store(0) }

// allImpls lists every implementation in run order.
func allImpls() []impl {
	out := []impl{
		goImpl[lot.Mutex]("lot", KindGo, "parking_lot's Mutex (internal/lot): barging, eventual fairness (a fair unlock about every 0.5 ms)", nil, nil),
		goImpl[lotFair]("lot-fair", KindGo, "lot.Mutex released with UnlockFair every time (direct handoff to the next waiter)", nil, nil),
		goImpl[sync.Mutex]("sync", KindGo, "Go's sync.Mutex (spins, then parks on a runtime semaphore; starvation mode after a 1 ms wait)", nil, nil),
		goImpl[futexsync.Mutex]("std-futex", KindGo, "Rust std's three-state futex mutex (internal/futexsync)", nil, nil),
		goImpl[pthreadLock]("pthread", KindCgo, "glibc pthread_mutex_t through cgo: two crossings per acquisition (cgo_call_ns says what one costs)", pthreadInit, pthreadFree),
		goImpl[spinLock]("spin", KindSpin, "test-and-test-and-set, relax between reads, bounded exponential backoff (never sleeps)", nil, nil),
		cImpl("c-pthread", cref.LockPthread, "the whole loop in C threads on glibc pthread_mutex_t: no Go runtime, no crossing (the floor)"),
		cImpl("c-spin", cref.LockSpin, "the whole loop in C threads on a C TTAS spin lock with PAUSE and backoff (the floor)"),
	}
	out = append(out, piImpls()...)
	return append(whyNot(out), extImpls()...)
}

// extLock is a mutex from outside the tree (internal/ext).
type extLock struct{ ext.Locker }

// extImpls are the mutexes from outside the tree: each from Go threads
// (a plugin's through cgo, one crossing per Lock and per Unlock), and a
// plugin's also as c-NAME, the whole loop in C threads calling its
// function pointers (no Go runtime, no crossing).
func extImpls() []impl {
	var out []impl
	for _, x := range ext.All() {
		if x.NewLock == nil {
			continue
		}
		kind := KindGo
		if x.C != nil {
			kind = KindCgo
		}
		newLock := x.NewLock
		goRow := goImpl[extLock](x.Name, kind, x.Summary, func(m *extLock) error { m.Locker = newLock(); return nil }, func(*extLock) {})
		goRow.plugin = x.C != nil
		out = append(out, goRow)
		if x.C == nil {
			continue
		}
		c := x.C
		fp := func(cref.LockPattern, int) string { return ext.LoopFuncPointers }
		im := impl{name: ext.CName(x.Name), kind: KindC, c: true,
			summary: x.Name + "'s whole loop in C threads calling its functions: no Go runtime, no crossing",
			run: func(ctx context.Context, sp spec) (*raw, error) {
				return cRun(ctx, cref.LockPlugin, sp, c)
			},
			uncontended: func() float64 {
				return minOf(uncBatches, func() float64 { return cref.LockUncontendedNs(cref.LockPlugin, c, uncIters) })
			},
			loop: fp,
		}
		if err := cref.LockAvailable(); err != nil {
			im.why = err.Error()
		}
		if x.Own.Lock {
			// The library's own loop (ABI version 2), its lock inlined,
			// is c-NAME; the function pointers' row stays, as
			// c-NAME.fp. The own loop runs mutex.rs's loop on one lock;
			// other patterns fall back to the function pointers.
			own := im
			own.summary = x.Name + "'s own loop (its lock inlined) in C threads: the library at its native speed"
			own.loop = func(p cref.LockPattern, locks int) string {
				if ownLockFits(p, locks) {
					return ext.LoopOwn
				}
				return ext.LoopFuncPointers
			}
			own.run = func(ctx context.Context, sp spec) (*raw, error) {
				if ownLockFits(sp.pattern, sp.locks) {
					return cRun(ctx, cref.LockOwn, sp, c)
				}
				return cRun(ctx, cref.LockPlugin, sp, c)
			}
			im.name = ext.CFuncName(x.Name)
			out = append(out, own)
		}
		out = append(out, im)
	}
	return out
}

// ownLockFits reports whether a library's own lock loop runs a spec of
// pattern p on locks locks: mutex.rs's loop on one lock.
func ownLockFits(p cref.LockPattern, locks int) bool { return p == cref.PatternLoop && locks == 1 }

// whyNot sets why each implementation does not run here: std-futex needs
// Linux futexes, pthread and the C loops internal/cref (a cgo build).
func whyNot(impls []impl) []impl {
	for i, im := range impls {
		if w := piWhy(im.name); w != "" {
			impls[i].why = w
			continue
		}
		switch {
		case im.name == "std-futex" && !futexsync.Supported:
			impls[i].why = "Rust std's futex locks need Linux futexes"
		case im.name == "pthread" || im.c:
			if err := cref.LockAvailable(); err != nil {
				impls[i].why = err.Error()
			}
		}
	}
	return impls
}

func cImpl(name string, mode cref.LockMode, summary string) impl {
	return impl{
		name: name, kind: KindC, summary: summary, c: true,
		run: func(ctx context.Context, sp spec) (*raw, error) { return cRun(ctx, mode, sp, nil) },
		uncontended: func() float64 {
			return minOf(uncBatches, func() float64 { return cref.LockUncontendedNs(mode, nil, uncIters) })
		},
	}
}

// lotOverParker is lot@PARKER: lot.Mutex with the parking lot switched to
// that parker for the run (driver.WithLotParker; parked threads keep their
// own parker, so switching between runs is safe).
func lotOverParker(name string) (impl, error) {
	b, err := driver.LotParker("LotParkers", name)
	if err != nil {
		return impl{}, err
	}
	if w := b.Why(); w != "" {
		return impl{}, driver.Bad("LotParkers", "parker %q is not available here: %s", name, w)
	}
	im := goImpl[lot.Mutex]("lot@"+name, KindGo, "lot.Mutex over the "+name+" parker", nil, nil)
	im.parker = b
	run, unc := im.run, im.uncontended
	im.run = func(ctx context.Context, sp spec) (r *raw, err error) {
		err = driver.WithLotParker(b, func() error {
			r, err = run(ctx, sp)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("lot over parker %s: %w", b.Name, err)
		}
		return r, nil
	}
	im.uncontended = func() (ns float64) {
		_ = driver.WithLotParker(b, func() error { ns = unc(); return nil })
		return ns
	}
	return im, nil
}

// rwLocker is what the rwlock loop needs of a lock.
type rwLocker interface {
	locker
	RLock()
	RUnlock()
}

// pthreadRw is glibc's pthread_rwlock_t through cgo: one crossing per call.
type pthreadRw struct{ *cref.PthreadRwLock }

var pthreadRwInit, pthreadRwFree = cgoLock(cref.NewPthreadRwLock, func(m *pthreadRw) **cref.PthreadRwLock { return &m.PthreadRwLock })

// rwImpl builds a Go rwlock implementation over type M.
func rwImpl[M any, PM interface {
	*M
	rwLocker
}](name, kind, summary string, init func(*M) error, free func(*M)) impl {
	rw := func(ctx context.Context, sp rwSpec) (*rwRaw, error) { return goRwRun[M, PM](ctx, sp, init, free) }
	return impl{name: name, kind: kind, summary: summary, rw: rw}
}

// allRwImpls lists every --rwlock implementation in run order.
func allRwImpls() []impl {
	c := impl{name: "c-pthread", kind: KindC, c: true,
		summary: "the whole loop in C threads on glibc pthread_rwlock_t (readers preferred, the default): no Go runtime (the floor)",
		rw:      func(ctx context.Context, sp rwSpec) (*rwRaw, error) { return cRwRun(ctx, sp) }}
	out := []impl{
		rwImpl[lot.RwLock]("lot", KindGo, "parking_lot's RwLock (internal/lot): task-fair, readers queue behind a parked writer", nil, nil),
		rwImpl[sync.RWMutex]("sync", KindGo, "Go's sync.RWMutex: a pending writer blocks new readers", nil, nil),
		rwImpl[futexsync.RwLock]("std-futex", KindGo, "Rust std's futex rwlock (internal/futexsync): writer-preferring", nil, nil),
		rwImpl[pthreadRw]("pthread", KindCgo, "glibc pthread_rwlock_t through cgo (readers preferred): one crossing per lock and per unlock", pthreadRwInit, pthreadRwFree),
		c,
	}
	return whyNot(out)
}

func (im impl) info() driver.ImplInfo {
	return driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.why}
}

// catalog is the lock benchmark's implementations (lot@PARKER apart:
// LotParkers adds those).
func catalog() driver.Catalog[impl] {
	return driver.Catalog[impl]{Items: allImpls(), Info: impl.info}
}

// rwCatalog is the rwlock benchmark's implementations.
func rwCatalog() driver.Catalog[impl] {
	return driver.Catalog[impl]{Items: allRwImpls(), Info: impl.info}
}

// Impls lists every implementation for help and `parkbench list`.
func Impls() []driver.ImplInfo { return catalog().Infos() }

// ImplNames lists the implementation names.
func ImplNames() []string { return catalog().Names() }

// RwImpls lists every --rwlock implementation for `parkbench list`.
func RwImpls() []driver.ImplInfo { return rwCatalog().Infos() }

// RwImplNames lists the --rwlock implementation names.
func RwImplNames() []string { return rwCatalog().Names() }
