package lock

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/experiments/driver"
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
}

// goImpl builds a Go implementation over lock type M.
func goImpl[M any, PM interface {
	*M
	locker
}](name, kind, summary string, init func(*M) error, free func(*M)) impl {
	return impl{
		name: name, kind: kind, summary: summary,
		run: func(ctx context.Context, sp spec) (*raw, error) {
			return goRun[M, PM](ctx, sp, init, free)
		},
		uncontended: func() float64 { return goUncontended[M, PM](init, free) },
	}
}

// locker is what the loop needs of a lock.
type locker interface {
	Lock()
	Unlock()
}

// lotFair is lot.Mutex released with UnlockFair every time.
type lotFair struct{ lot.Mutex }

func (m *lotFair) Unlock() { m.Mutex.UnlockFair() }

// pthreadLock is glibc's pthread_mutex_t through cgo: one crossing per
// Lock and per Unlock.
type pthreadLock struct{ m *cref.PthreadMutex }

func (m *pthreadLock) Lock()   { m.m.Lock() }
func (m *pthreadLock) Unlock() { m.m.Unlock() }

func pthreadInit(m *pthreadLock) (err error) {
	m.m, err = cref.NewPthreadMutex()
	return err
}
func pthreadFree(m *pthreadLock) {
	if m.m != nil {
		m.m.Free()
	}
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
	futexWhy := ""
	if !futexsync.Supported {
		futexWhy = "Rust std's futex mutex needs Linux futexes"
	}
	cWhy := ""
	if err := cref.LockAvailable(); err != nil {
		cWhy = err.Error()
	}
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
	for i := range out {
		switch out[i].name {
		case "std-futex":
			out[i].why = futexWhy
		case "pthread", "c-pthread", "c-spin":
			out[i].why = cWhy
		}
	}
	return out
}

func cImpl(name string, mode cref.LockMode, summary string) impl {
	return impl{
		name: name, kind: KindC, summary: summary, c: true,
		run: func(ctx context.Context, sp spec) (*raw, error) { return cRun(ctx, mode, sp) },
		uncontended: func() float64 {
			return minOf(uncBatches, func() float64 { return cref.LockUncontendedNs(mode, uncIters) })
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

// Impls lists every implementation for help and `parkbench list`.
func Impls() []driver.ImplInfo {
	var out []driver.ImplInfo
	for _, im := range allImpls() {
		out = append(out, driver.ImplInfo{Name: im.name, Kind: im.kind, Summary: im.summary, Why: im.why})
	}
	return out
}

// ImplNames lists the implementation names.
func ImplNames() []string {
	var out []string
	for _, im := range allImpls() {
		out = append(out, im.name)
	}
	return out
}
