package loaded

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/parkers"
)

// A slot is one sleeper's mailbox: a worker's (posted a request) or, in
// the closed loop, a message thread's (a worker is back). Its state word
// carries the handshake every mechanism shares:
//
//	sleeper: state = sleepy; if it has work after all, CAS sleepy -> awake
//	         and go on; otherwise wait until state == posted, then
//	         state = awake.
//	poster:  (work queued first) if state == sleepy: stamp the clock, CAS
//	         sleepy -> posted, and if that won, wake the sleeper.
//
// Why no wakeup is lost: the sleeper's store of sleepy comes before its
// second look at its work, and the poster's queueing comes before its look
// at the state (sequentially consistent atomics, Dekker's pattern). So
// either the sleeper sees the work, or the poster sees sleepy and posts.
// When both happen, the sleeper's CAS to awake fails because the poster's
// CAS to posted won; the sleeper then waits for posted, which is already
// there, and consumes it. Only the poster that moved the state to posted
// wakes, and the mechanism's wait returns only once the state is posted;
// each mechanism's own argument for why its wake reaches that wait is at
// its wait below. A wake that comes late (the sleeper saw posted before
// it slept) is absorbed: the mechanisms' wait loops re-check the state.
//
// A post is not a request (ABA on the state word): a poster that read
// sleepy, then lost its CPU before its CAS, can land that CAS on a later
// sleep's sleepy, after the sleeper took the request by the fast path and
// announced sleep again. The sleeper then wakes with nothing queued. The
// callers treat every wake that way: they look at the queue again, and
// the closed loop's worker goes back on the message thread's list once
// per request taken, not once per wake (run.go).
//
// The stamp is stored before the CAS, so a sleeper that sees posted reads
// this post's stamp (the CAS publishes it); wakeup latency is the
// sleeper's clock after its wait minus the stamp: schbench's wake_time
// (masoncl/schbench schbench.c:1294 in the -R loop), taken right before
// the wake call.
type slot struct {
	state atomic.Int32 // the futex word of futex and spin-park
	_     [60]byte
	stamp atomic.Int64 // the poster's clock right before the wake
	// per mechanism
	tp    parkers.ThreadParker
	tk    parkers.TokenParker
	lotOK func() bool // lot's validate: still sleepy
	mu    sync.Mutex  // sync
	cond  *sync.Cond
	_     [64]byte
}

// Slot states.
const (
	awake  int32 = 0
	sleepy int32 = 1
	posted int32 = 2
)

// mechanism is how a sleeper waits for posted and how a poster wakes it.
type mechanism struct {
	name, kind, summary string
	unavailable         func() error
	// goroutines: the sleepers are plain goroutines at GOMAXPROCS =
	// NumCPU (sync), not locked threads.
	goroutines bool
	// setup prepares a slot (on the sleeper's own thread).
	setup func(s *slot)
	// wait returns once s.state == posted.
	wait func(s *slot)
	// wake wakes the sleeper of s, after the CAS to posted.
	wake func(s *slot)
}

func backendWhy(name string) func() error {
	return func() error {
		_, err := parkers.Lookup(name)
		return err
	}
}

// allMechanisms are the mechanisms in --impl order.
var allMechanisms = []mechanism{
	{
		name: "futex", kind: "thread",
		summary:     "schbench's own: FUTEX_WAIT_PRIVATE on the worker's word while it says sleepy; the message thread CASes it and FUTEX_WAKE_PRIVATE (fpost/fwait)",
		unavailable: driver.NeedFutex,
		setup:       func(*slot) {},
		wait:        futexWait,
		wake:        futexWake,
	},
	{
		name: "lot", kind: "lot",
		summary: "the parking lot: lot.Park on the worker's slot (validate: still sleepy, under the bucket lock) / lot.UnparkOne",
		setup: func(s *slot) {
			s.lotOK = func() bool { return s.state.Load() == sleepy }
		},
		// The poster's CAS to posted comes before its UnparkOne, which
		// takes the bucket lock; validate reads the state under the same
		// lock: either it sees posted and does not park, or the thread
		// is queued before UnparkOne looks.
		wait: func(s *slot) {
			for s.state.Load() != posted {
				lot.Park(unsafe.Pointer(s), s.lotOK, nil, nil, lot.DefaultParkToken, time.Time{})
			}
		},
		wake: func(s *slot) { lot.UnparkOne(unsafe.Pointer(s), nil) },
	},
	tokenMech(parkers.NameStd, "Rust std's Linux thread parker (futex token parker): Park / Unpark", "thread"),
	threadMech(parkers.NamePthread, "parking_lot's pthread thread parker (mutex + condvar, cgo): PreparePark, Park / UnparkLock, Unpark", "thread"),
	{
		name: "sync", kind: "goroutine",
		summary:    "Go sync.Mutex + sync.Cond per worker; workers and message threads are plain goroutines at GOMAXPROCS = NumCPU (goroutine level)",
		goroutines: true,
		setup:      func(s *slot) { s.cond = sync.NewCond(&s.mu) },
		// The state is read under the mutex and Wait releases it
		// atomically; the poster signals under the mutex after its CAS.
		wait: func(s *slot) {
			s.mu.Lock()
			for s.state.Load() != posted {
				s.cond.Wait()
			}
			s.mu.Unlock()
		},
		wake: func(s *slot) {
			s.mu.Lock()
			s.cond.Signal()
			s.mu.Unlock()
		},
	},
	{
		name: "spin", kind: "thread",
		summary: "busy-wait on the worker's word (no sleep, no wake call): what a spinning waiter costs the machine",
		setup:   func(*slot) {},
		wait: func(s *slot) {
			for s.state.Load() != posted {
				parkers.CPURelax(8)
			}
		},
		wake: func(*slot) {},
	},
	{
		name: "spin-park", kind: "thread",
		summary:     "parking_lot's SpinWait before sleeping (3 rounds of 2, 4, 8 relaxes, then 7 sched_yield), then the futex wait: spinning before parking",
		unavailable: driver.NeedFutex,
		setup:       func(*slot) {},
		wait: func(s *slot) {
			var sw lot.SpinWait
			for s.state.Load() != posted {
				if !sw.Spin() {
					futexWait(s)
					return
				}
			}
		},
		wake: futexWake,
	},
}

// parkerMech is a mechanism on the registered parker backend name: setup
// gives each slot its parker (newParker), wait and wake are the caller's.
func parkerMech(name, summary, kind string, newParker func(parkers.Backend, *slot)) mechanism {
	return mechanism{
		name: name, kind: kind, summary: summary, unavailable: backendWhy(name),
		setup: func(s *slot) {
			b, _ := parkers.Lookup(name)
			newParker(b, s)
		},
	}
}

// tokenMech drives a token parker (std): wait parks until posted; a token
// left by a wake the sleeper did not need makes one Park return at once,
// and the loop parks again.
func tokenMech(name, summary, kind string) mechanism {
	m := parkerMech(name, summary, kind, func(b parkers.Backend, s *slot) { s.tk = b.NewToken() })
	// Unpark leaves a token if the sleeper is not parked yet; the CAS to
	// posted comes before it, so the loop either sees posted or its Park
	// consumes the token and it looks again.
	m.wait = func(s *slot) {
		for s.state.Load() != posted {
			s.tk.Park()
		}
	}
	m.wake = func(s *slot) { s.tk.Unpark() }
	return m
}

// threadMech drives a thread parker (pthread) as latency's ping-pong does
// (internal/pingpong/mech.go): PreparePark before the second look
// at the state, so an UnparkLock after the CAS to posted reaches the Park.
func threadMech(name, summary, kind string) mechanism {
	m := parkerMech(name, summary, kind, func(b parkers.Backend, s *slot) { s.tp = b.NewThread() })
	m.wait = func(s *slot) {
		for s.state.Load() != posted {
			s.tp.PreparePark()
			if s.state.Load() != posted {
				s.tp.Park()
			}
		}
	}
	m.wake = func(s *slot) { s.tp.UnparkLock().Unpark() }
	return m
}

// sleep is the sleeper's side of the handshake: it returns once posted
// (consumed), or at once (false) when hasWork finds work after the
// announcement and no post raced it.
func (m *mechanism) sleep(s *slot, hasWork func() bool) (slept bool) {
	s.state.Store(sleepy)
	if hasWork() && s.state.CompareAndSwap(sleepy, awake) {
		return false
	}
	m.wait(s)
	s.state.Store(awake)
	return true
}

// post is the poster's side: it wakes the sleeper if it announced sleep
// and no other post got there first. It reports whether it posted.
func (m *mechanism) post(s *slot) bool {
	if s.state.Load() != sleepy {
		return false
	}
	s.stamp.Store(monoclock.Nanotime())
	if !s.state.CompareAndSwap(sleepy, posted) {
		return false
	}
	m.wake(s)
	return true
}

// forcePost posts whatever the state, to release a sleeper at the end.
func (m *mechanism) forcePost(s *slot) {
	s.stamp.Store(monoclock.Nanotime())
	if s.state.Swap(posted) != posted {
		m.wake(s)
	}
}

func (m mechanism) why() string { return driver.Why(m.unavailable) }

func catalog() driver.Catalog[mechanism] {
	return driver.Catalog[mechanism]{Items: allMechanisms, Info: func(m mechanism) driver.ImplInfo {
		return driver.ImplInfo{Name: m.name, Kind: m.kind, Summary: m.summary, Why: m.why()}
	}}
}

// ImplNames returns every --impl name, in order.
func ImplNames() []string { return catalog().Names() }

// Impls describes every mechanism for `parkbench list`.
func Impls() []driver.ImplInfo { return catalog().Infos() }
