package stress

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/memorder"
	"github.com/parkbench/parkbench/internal/parkers"
)

// threadBackends returns every available backend with a ThreadParker
// constructor (thread kind, token parkers through their adapter, goroutine
// mechanisms that implement it).
func threadBackends() []parkers.Backend {
	var out []parkers.Backend
	for _, b := range parkers.All() {
		if b.NewThread != nil && b.Available() {
			out = append(out, b)
		}
	}
	return out
}

// tokenBackends returns every available backend with a TokenParker.
func tokenBackends() []parkers.Backend {
	var out []parkers.Backend
	for _, b := range parkers.All() {
		if b.NewToken != nil && b.Available() {
			out = append(out, b)
		}
	}
	return out
}

// rescueHook lets a deliberately broken parker (checkers_test.go) be
// unblocked after the watchdog caught it, when Unpark alone cannot.
func rescueHook(p any) {
	if r, ok := p.(interface{ rescue() }); ok {
		r.rescue()
	}
}

// tslot is one parked thread as the lot sees it: a queue lock, a queued
// flag, the parker. delivered counts UnparkLock calls (under mu).
type tslot struct {
	mu        sync.Mutex
	queued    bool
	p         parkers.ThreadParker
	delivered atomic.Uint64
}

// stressThreadParker drives the ThreadParker contract the way the lot's
// parking lot does (internal/lot/parkinglot.go park): waiters PreparePark
// and queue under the queue lock, then Park or ParkUntil; wakers dequeue
// and UnparkLock under the lock, then Unpark after it; a timed-out waiter
// relocks and asks TimedOut. s.mu is the lot's bucket lock, held where the
// lot holds it and nowhere else (the lot too calls PreparePark under it,
// before the unlock that publishes the queue entry). Callers without a
// queue lock are driven by stressPingPong. Checks: no lost wakeup
// (watchdog), no return without an UnparkLock, TimedOut false after an
// UnparkLock, timed parks return within the bound.
func stressThreadParker(r reporter, name string, newParker func() parkers.ThreadParker, waiters, wakers int) (ops, checks uint64) {
	ru := newRun(r, name, waiters+wakers)
	slots := make([]*tslot, waiters)
	for i := range slots {
		slots[i] = &tslot{p: newParker()}
	}
	var waitersDone atomic.Int32
	ru.rescue = func() {
		// Break the contract to unblock: wake every parker, repeatedly.
		go func() {
			for waitersDone.Load() < int32(waiters) {
				for _, s := range slots {
					s.p.UnparkLock().Unpark()
					rescueHook(s.p)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	var timeouts, lateUnparks atomic.Uint64
	fns := make([]func(*worker), 0, waiters+wakers)
	for i := 0; i < waiters; i++ {
		s := slots[i]
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waiter %d", i)
			defer waitersDone.Add(1)
			var consumed uint64
			for !ru.stopping() {
				s.mu.Lock()
				s.p.PreparePark()
				s.queued = true
				s.mu.Unlock()
				if w.sometimes(4) {
					w.set(&stParkUntil)
					d := w.shortDeadline()
					if !s.p.ParkUntil(d) {
						checkTimeoutBound(ru, "ParkUntil", d, time.Now())
						w.checks++
						w.set(&stRelock)
						s.mu.Lock()
						if s.p.TimedOut() {
							w.checks++
							if !s.queued {
								ru.errorf("%s: TimedOut() is true but the waker already dequeued and UnparkLock'ed it: a lost wakeup", w.name)
							}
							s.queued = false
							s.mu.Unlock()
							timeouts.Add(1)
							w.ops.Add(1)
							continue
						}
						s.mu.Unlock()
						lateUnparks.Add(1)
					}
				} else {
					w.set(&stPark)
					s.p.Park()
				}
				consumed++
				w.checks++
				if d := s.delivered.Load(); consumed > d {
					ru.errorf("%s: park returned %d times but was unparked %d times: a return without an UnparkLock", w.name, consumed, d)
					consumed = d
				}
				w.ops.Add(1)
			}
		})
	}
	for j := 0; j < wakers; j++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waker %d", j)
			k := j
			for waitersDone.Load() < int32(waiters) {
				s := slots[k%waiters]
				k++
				s.mu.Lock()
				if !s.queued {
					s.mu.Unlock()
					if k%waiters == 0 {
						runtime.Gosched()
					}
					continue
				}
				w.set(&stUnpark)
				s.queued = false
				s.delivered.Add(1)
				h := s.p.UnparkLock()
				s.mu.Unlock()
				h.Unpark()
				w.ops.Add(1)
			}
			w.set(&stDone)
		})
	}
	ru.goAll(fns...)
	ru.note("timeouts=%d late_unparks=%d", timeouts.Load(), lateUnparks.Load())
	return ru.report()
}

// stressPingPong drives the ThreadParker contract the way the latency
// experiment does (internal/pingpong/mech.go parkerMech,
// internal/pingpong/pingpong.go), with no lock anywhere: pairs of threads ping-pong;
// the waiter loops "PreparePark; if flag == 0 { Park }" and clears its
// flag, the waker stores the peer's flag and calls UnparkLock().Unpark()
// on every wake, also when the peer never parked (the stale unparks the
// experiment makes). A PreparePark store that a later flag load can pass
// (store->load) leaves both sides parked: the watchdog reports it. Checks:
// each side receives the trip numbers in order, none lost or repeated.
func stressPingPong(r reporter, name string, newParker func() parkers.ThreadParker, pairs int) (ops, checks uint64) {
	ru := newRun(r, name, 2*pairs)
	type side struct {
		flag atomic.Uint32
		trip atomic.Uint64 // the sender's trip number, stored before flag
		p    parkers.ThreadParker
		_    [40]byte
	}
	sides := make([]*side, 2*pairs)
	for i := range sides {
		sides[i] = &side{p: newParker()}
	}
	var quit atomic.Bool // set by the rescue only
	var done atomic.Int32
	ru.rescue = func() {
		quit.Store(true)
		go func() {
			for done.Load() < int32(len(sides)) {
				for _, s := range sides {
					s.flag.Store(1)
					s.p.UnparkLock().Unpark()
					rescueHook(s.p)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	wait := func(s *side) {
		for s.flag.Load() == 0 && !quit.Load() {
			s.p.PreparePark()
			if s.flag.Load() == 0 {
				s.p.Park()
			}
		}
		s.flag.Store(0)
	}
	send := func(s *side, trip uint64) {
		s.trip.Store(trip)
		s.flag.Store(1)
		s.p.UnparkLock().Unpark()
	}
	fns := make([]func(*worker), 0, 2*pairs)
	for i := 0; i < 2*pairs; i++ {
		me, peer := sides[i], sides[i^1]
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("pair %d side %d", i/2, i%2)
			defer done.Add(1)
			for trip := uint64(1); ; trip++ {
				if i%2 == 0 {
					// The initiator decides when the pair ends,
					// and tells the answerer with trip 0.
					if ru.stopping() {
						send(peer, 0)
						return
					}
					w.set(&stUnpark)
					send(peer, trip)
				}
				w.set(&stPark)
				wait(me)
				got := me.trip.Load()
				if got == 0 || quit.Load() {
					return
				}
				w.checks++
				if got != trip {
					ru.errorf("%s: got trip %d, want %d", w.name, got, trip)
					return
				}
				if i%2 == 1 {
					w.set(&stUnpark)
					send(peer, trip)
				}
				w.ops.Add(1)
			}
		})
	}
	ru.goAll(fns...)
	return ru.report()
}

func TestThreadParkers(t *testing.T) {
	for _, b := range threadBackends() {
		t.Run(b.Name, func(t *testing.T) {
			for _, p := range procsMatrix {
				withProcs(t, p, func(t *testing.T) {
					// More threads than the 2 vCPUs: 4 waiters, 2 wakers.
					stressThreadParker(t, "thread/"+b.Name, b.NewThread, 4, 2)
				})
			}
		})
	}
}

// TestThreadParkersPingPong: the latency experiment's lockless protocol,
// whose missed-wakeup argument is the atomics' store->load order (the
// locked protocol above is ordered by its lock's read-modify-writes too).
func TestThreadParkersPingPong(t *testing.T) {
	memorder.SkipUnlessStoreLoadOrdered(t)
	for _, b := range threadBackends() {
		t.Run(b.Name, func(t *testing.T) {
			for _, p := range procsMatrix {
				withProcs(t, p, func(t *testing.T) {
					// Two pairs: four threads on the 2 vCPUs.
					stressPingPong(t, "pingpong/"+b.Name, b.NewThread, 2)
				})
			}
		})
	}
}

// tkslot is one token parker with its flag.
type tkslot struct {
	p       parkers.TokenParker
	flag    atomic.Bool
	unparks atomic.Uint64
}

// stressTokenParker: waiters loop "until CAS(flag) { Park }", wakers set
// the flag and Unpark. Checks: no lost wakeup (watchdog), Park (untimed)
// never returns more often than Unpark was called, a ParkDeadline that
// reports a token had one, timed parks return within the bound.
func stressTokenParker(r reporter, name string, newParker func() parkers.TokenParker, waiters, wakers int) (ops, checks uint64) {
	ru := newRun(r, name, waiters+wakers)
	slots := make([]*tkslot, waiters)
	for i := range slots {
		slots[i] = &tkslot{p: newParker()}
	}
	var waitersDone atomic.Int32
	ru.rescue = func() {
		go func() {
			for waitersDone.Load() < int32(waiters) {
				for _, s := range slots {
					s.flag.Store(true)
					s.p.Unpark()
					rescueHook(s.p)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	var timedReturns atomic.Uint64
	fns := make([]func(*worker), 0, waiters+wakers)
	for i := 0; i < waiters; i++ {
		s := slots[i]
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waiter %d", i)
			defer waitersDone.Add(1)
			var tokens uint64 // returns that consumed a token
			for !ru.stopping() {
				for !s.flag.CompareAndSwap(true, false) {
					if w.sometimes(4) {
						w.set(&stParkUntil)
						d := w.shortDeadline()
						if s.p.ParkDeadline(d) {
							tokens++
						} else {
							checkTimeoutBound(ru, "ParkDeadline", d, time.Now())
							timedReturns.Add(1)
						}
					} else {
						w.set(&stPark)
						s.p.Park()
						tokens++
					}
					w.checks++
					if u := s.unparks.Load(); tokens > u {
						ru.errorf("%s: %d token returns from %d unparks: a park returned without a token", w.name, tokens, u)
						tokens = u
					}
				}
				w.ops.Add(1)
			}
		})
	}
	for j := 0; j < wakers; j++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waker %d", j)
			k := j
			for waitersDone.Load() < int32(waiters) {
				s := slots[k%waiters]
				k++
				if s.flag.Load() {
					if k%waiters == 0 {
						runtime.Gosched()
					}
					continue
				}
				w.set(&stUnpark)
				s.unparks.Add(1)
				s.flag.Store(true)
				s.p.Unpark()
				w.ops.Add(1)
			}
		})
	}
	ru.goAll(fns...)
	ru.note("timed_or_spurious=%d", timedReturns.Load())
	return ru.report()
}

func TestTokenParkers(t *testing.T) {
	for _, b := range tokenBackends() {
		t.Run(b.Name, func(t *testing.T) {
			for _, p := range procsMatrix {
				withProcs(t, p, func(t *testing.T) {
					stressTokenParker(t, "token/"+b.Name, b.NewToken, 4, 2)
				})
			}
		})
	}
}

// checkTokensDoNotAccumulate: k Unparks leave one token: the next Park
// returns at once, and a ParkDeadline after it finds no token.
func checkTokensDoNotAccumulate(r reporter, name string, newParker func() parkers.TokenParker, rounds int) (checks uint64) {
	ru := newRun(r, name, 1)
	ru.rescue = nil
	p := newParker()
	ru.goAll(func(w *worker) {
		for i := 0; i < rounds; i++ {
			k := 1 + i%3
			for j := 0; j < k; j++ {
				p.Unpark()
			}
			w.set(&stPark)
			p.Park() // a token is there: returns at once (else the watchdog fires)
			w.set(&stParkUntil)
			d := time.Now().Add(100 * time.Microsecond)
			if p.ParkDeadline(d) {
				ru.errorf("after %d Unparks, the second park found a token: tokens accumulate", k)
			}
			checkTimeoutBound(ru, "ParkDeadline", d, time.Now())
			w.checks += 2
			w.ops.Add(1)
		}
	})
	_, checks = ru.report()
	return checks
}

func TestTokensDoNotAccumulate(t *testing.T) {
	for _, b := range tokenBackends() {
		t.Run(b.Name, func(t *testing.T) {
			checkTokensDoNotAccumulate(t, "token-accumulate/"+b.Name, b.NewToken, 30)
		})
	}
}
