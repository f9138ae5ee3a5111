package stress

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/parkers"
)

// withLotBackend runs f with b under the parking lot and restores the old
// backend.
func withLotBackend(t *testing.T, b parkers.Backend, f func()) {
	t.Helper()
	old := lot.CurrentBackend()
	if err := lot.SetBackend(b); err != nil {
		t.Skipf("lot cannot use %s: %v", b.Name, err)
	}
	defer func() {
		if err := lot.SetBackend(old); err != nil {
			t.Errorf("restoring lot backend %s: %v", old.Name, err)
		}
	}()
	f()
}

// parkKey is a heap object whose address is a park key. Its counters are
// only touched under the key's bucket lock (in validate and the unpark
// callbacks) but are atomic to keep the checks independent of that claim.
type parkKey struct {
	tickets  atomic.Uint64 // enqueue order: taken in validate
	dequeues atomic.Uint64 // UnparkOne order: taken in the callback
	allWoken atomic.Uint64 // threads UnparkAll reported
	filtered atomic.Uint64 // threads UnparkFilter reported
	returns  atomic.Uint64 // Park returned Unparked
	_        [64]byte
}

const (
	tokOne    = 1 << 40 // UnparkOne: tokOne | dequeue sequence
	tokAll    = 2 << 40
	tokFilter = 3 << 40
	tokMask   = 3 << 40
)

// stressLotPark drives lot.Park / UnparkOne / UnparkAll / UnparkFilter on a
// few keys. Checks: no lost wakeup (watchdog); every thread the unparkers
// counted returns Unparked exactly once and nobody else does (a thread
// marked and then reported TimedOut is a lost wakeup); the timed-out
// callback runs exactly for TimedOut results and with the right key; FIFO
// per key (UnparkOne wakes in enqueue order); timed parks return in bound.
func stressLotPark(r reporter, name string, waiters, wakers, nkeys int) (ops, checks uint64) {
	ru := newRun(r, name, waiters+wakers)
	keys := make([]*parkKey, nkeys)
	for i := range keys {
		keys[i] = new(parkKey)
	}
	var waitersDone atomic.Int32
	ru.rescue = func() {
		go func() {
			for waitersDone.Load() < int32(waiters) {
				for _, k := range keys {
					lot.UnparkAll(unsafe.Pointer(k), 0)
				}
				time.Sleep(time.Millisecond)
			}
		}()
	}
	// pairs[key] collects (ticket, dequeue) of the threads UnparkOne woke.
	var pairMu sync.Mutex
	pairs := make([][][2]uint64, nkeys)
	var timeouts, invalids atomic.Uint64
	fns := make([]func(*worker), 0, waiters+wakers)
	for i := 0; i < waiters; i++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waiter %d", i)
			defer waitersDone.Add(1)
			var mine [][][2]uint64 = make([][][2]uint64, nkeys)
			defer func() {
				pairMu.Lock()
				for k := range mine {
					pairs[k] = append(pairs[k], mine[k]...)
				}
				pairMu.Unlock()
			}()
			for {
				ki := w.rng.IntN(nkeys)
				k := keys[ki]
				var ticket uint64
				validated, timedOutCalled := false, false
				var deadline time.Time
				if w.sometimes(4) {
					deadline = w.shortDeadline()
					w.set(&stParkUntil)
				} else {
					w.set(&stPark)
				}
				res := lot.Park(unsafe.Pointer(k),
					func() bool {
						if ru.stopping() {
							return false
						}
						validated = true
						ticket = k.tickets.Add(1)
						return true
					},
					nil,
					func(key unsafe.Pointer, wasLast bool) {
						timedOutCalled = true
						if key != unsafe.Pointer(k) {
							ru.errorf("%s: timed-out callback got key %p, parked on %p (nobody requeues here)", w.name, key, k)
						}
					},
					lot.ParkToken(w.id), deadline)
				w.checks += 2
				if timedOutCalled != (res.Kind == lot.ParkTimedOut) {
					ru.errorf("%s: result %v but timed-out callback called=%v", w.name, res.Kind, timedOutCalled)
				}
				switch res.Kind {
				case lot.ParkInvalid:
					invalids.Add(1)
					if validated {
						ru.errorf("%s: Invalid although validate returned true", w.name)
					}
					w.ops.Add(1)
					return // validate fails only once the case is stopping
				case lot.ParkTimedOut:
					if deadline.IsZero() {
						ru.errorf("%s: TimedOut from a park without a deadline", w.name)
					}
					checkTimeoutBound(ru, "lot.Park", deadline, time.Now())
					timeouts.Add(1)
				case lot.ParkUnparked:
					k.returns.Add(1)
					switch uint64(res.Token) & tokMask {
					case tokOne:
						mine[ki] = append(mine[ki], [2]uint64{ticket, uint64(res.Token) &^ tokMask})
					case tokAll, tokFilter:
					default:
						ru.errorf("%s: Unparked with token %#x that no unparker gave", w.name, res.Token)
					}
				default:
					ru.errorf("%s: Park returned %v", w.name, res.Kind)
				}
				w.ops.Add(1)
			}
		})
	}
	for j := 0; j < wakers; j++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("waker %d", j)
			n := 0
			for waitersDone.Load() < int32(waiters) {
				k := keys[w.rng.IntN(nkeys)]
				key := unsafe.Pointer(k)
				w.set(&stUnpark)
				n++
				switch {
				case n%16 == 0:
					k.allWoken.Add(uint64(lot.UnparkAll(key, tokAll)))
				case n%16 == 8:
					stopAfter := 1 + w.rng.IntN(3)
					seen := 0
					lot.UnparkFilter(key,
						func(pt lot.ParkToken) lot.FilterOp {
							seen++
							switch {
							case seen > stopAfter:
								return lot.FilterOpStop
							case pt%2 == 0:
								return lot.FilterOpUnpark
							}
							return lot.FilterOpSkip
						},
						func(res lot.UnparkResult) lot.UnparkToken {
							k.filtered.Add(uint64(res.UnparkedThreads))
							return tokFilter
						})
				default:
					res := lot.UnparkOne(key, func(res lot.UnparkResult) lot.UnparkToken {
						if res.UnparkedThreads == 1 {
							return lot.UnparkToken(tokOne | k.dequeues.Add(1))
						}
						return 0
					})
					w.checks++
					if res.UnparkedThreads > 1 || (res.UnparkedThreads == 0 && res.HaveMoreThreads) || res.RequeuedThreads != 0 {
						ru.errorf("%s: UnparkOne result %+v", w.name, res)
					}
					if res.UnparkedThreads == 0 {
						runtime.Gosched()
					}
				}
				w.ops.Add(1)
			}
		})
	}
	ru.goAll(fns...)
	// Exactly once: every thread an unparker counted came back Unparked,
	// and no other did.
	var woken uint64
	for i, k := range keys {
		want := k.dequeues.Load() + k.allWoken.Load() + k.filtered.Load()
		got := k.returns.Load()
		woken += got
		if got != want {
			ru.errorf("key %d: unparkers woke %d threads (one %d, all %d, filter %d) but %d parks returned Unparked",
				i, want, k.dequeues.Load(), k.allWoken.Load(), k.filtered.Load(), got)
		}
		ru.workers[0].checks += 1 + checkMonotonic(ru, fmt.Sprintf("key %d", i), pairs[i])
	}
	ru.note("unparked=%d timeouts=%d invalid=%d", woken, timeouts.Load(), invalids.Load())
	return ru.report()
}

func TestLotPark(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressLotPark(t, "lot-park/"+lot.CurrentBackend().Name, 6, 2, 3)
		})
	}
}

// mutexUnderTest is what the mutual-exclusion checker needs; fullMutex
// adds lot.Mutex's other entry points.
type mutexUnderTest interface {
	Lock()
	Unlock()
}

type fullMutex interface {
	mutexUnderTest
	TryLock() bool
	TryLockFor(time.Duration) bool
	UnlockFair()
	Bump()
}

// stressMutex: every thread takes the lock by Lock / TryLock /
// TryLockFor, checks it is alone (an owner word and an unprotected
// counter), sometimes yields or Bumps inside, and unlocks by Unlock or
// UnlockFair. Checks: mutual exclusion, the counter equals the number of
// acquisitions, TryLockFor returns within bound, no lost wakeup.
func stressMutex(r reporter, name string, m mutexUnderTest, threads int) (ops, checks uint64) {
	ru := newRun(r, name, threads)
	fm, full := m.(fullMutex)
	var owner atomic.Int64
	// counter is incremented by a separate load and store: without mutual
	// exclusion increments get lost (and the race detector stays quiet, so
	// the checker test with a broken mutex runs under -race too).
	var counter atomic.Uint64
	var acquired, tryFails atomic.Uint64
	enter := func(ru *run, w *worker) {
		w.checks++
		if prev := owner.Swap(int64(w.id) + 1); prev != 0 {
			ru.errorf("mutual exclusion violated: %s got the lock while thread %d holds it", w.name, prev-1)
		}
	}
	leave := func(ru *run, w *worker) {
		w.checks++
		if prev := owner.Swap(0); prev != int64(w.id)+1 {
			ru.errorf("mutual exclusion violated: %s leaving, but the owner word says %d", w.name, prev-1)
		}
	}
	fns := make([]func(*worker), threads)
	for i := range fns {
		fns[i] = func(w *worker) {
			w.name = fmt.Sprintf("thread %d", i)
			for !ru.stopping() {
				w.set(&stLock)
				got := true
				switch c := w.rng.IntN(8); {
				case full && c == 0:
					got = fm.TryLock()
				case full && c == 1:
					d := time.Duration(w.rng.IntN(100)) * time.Microsecond
					start := time.Now()
					got = fm.TryLockFor(d)
					if !got {
						checkTimeoutBound(ru, "TryLockFor", start.Add(d), time.Now())
					}
				default:
					m.Lock()
				}
				if !got {
					tryFails.Add(1)
					w.ops.Add(1)
					continue
				}
				w.set(&stCrit)
				enter(ru, w)
				counter.Store(counter.Load() + 1)
				acquired.Add(1)
				if w.sometimes(8) {
					runtime.Gosched() // let others queue up behind us
				}
				if full && w.sometimes(16) {
					leave(ru, w)
					fm.Bump()
					enter(ru, w)
				}
				leave(ru, w)
				w.set(&stUnlock)
				if full && w.sometimes(4) {
					fm.UnlockFair()
				} else {
					m.Unlock()
				}
				w.ops.Add(1)
			}
		}
	}
	ru.goAll(fns...)
	m.Lock()
	if c := counter.Load(); c != acquired.Load() {
		ru.errorf("unprotected counter is %d after %d acquisitions: mutual exclusion violated", c, acquired.Load())
	}
	m.Unlock()
	ru.workers[0].checks++
	ru.note("acquired=%d try_failed=%d", acquired.Load(), tryFails.Load())
	return ru.report()
}

func TestLotMutex(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressMutex(t, "lot-mutex/"+lot.CurrentBackend().Name, new(lot.Mutex), 6)
		})
	}
}

// condUnderTest is what the condvar checker needs (lot.Condvar has it).
type condUnderTest interface {
	Wait(m *lot.Mutex)
	WaitUntil(m *lot.Mutex, deadline time.Time) bool
	NotifyOne() bool
	NotifyAll() int
}

// stressCondvar is a bounded producer/consumer queue (upstream's
// webkit_queue_test shape) on one lot.Mutex and two condvars. Checks: every
// message arrives exactly once and in per-producer order; the mutex is
// held by exactly one thread after every Wait; no spurious wakeup
// (parking_lot promises none): the waits that returned "not timed out"
// equal the threads the notifies reported; timed waits return in bound;
// no lost wakeup (watchdog).
func stressCondvar(r reporter, name string, notEmpty, notFull condUnderTest, producers, consumers int) (ops, checks uint64) {
	ru := newRun(r, name, producers+consumers)
	var m lot.Mutex
	const capacity = 2
	var (
		queue      [][2]int // (producer, seq), under m
		finished   bool     // under m
		prodDone   int      // under m
		lastPopped = make([]int, producers)
		produced   = make([]int, producers)
		owner      atomic.Int64
		notified   atomic.Int64 // threads the notifies reported
		woken      atomic.Int64 // waits that returned not timed out
		timedOut   atomic.Int64
	)
	for i := range lastPopped {
		lastPopped[i] = -1
	}
	ru.rescue = func() {
		go func() {
			for i := 0; i < 2000 && !ru.allDone(); i++ {
				rescueHook(notEmpty)
				rescueHook(notFull)
				notEmpty.NotifyAll()
				notFull.NotifyAll()
				time.Sleep(time.Millisecond)
			}
		}()
	}
	hold := func(w *worker) {
		w.checks++
		if prev := owner.Swap(int64(w.id) + 1); prev != 0 {
			ru.errorf("%s holds the mutex (after Lock or Wait) but so does thread %d", w.name, prev-1)
		}
	}
	release := func(w *worker) { owner.Store(0) }
	wait := func(w *worker, cv condUnderTest) {
		release(w)
		w.set(&stWait)
		if w.sometimes(4) {
			d := w.shortDeadline()
			to := cv.WaitUntil(&m, d)
			if to {
				checkTimeoutBound(ru, "Condvar.WaitUntil", d, time.Now())
				timedOut.Add(1)
			} else {
				woken.Add(1)
			}
		} else {
			cv.Wait(&m)
			woken.Add(1)
		}
		hold(w)
	}
	notify := func(w *worker, cv condUnderTest) {
		w.set(&stNotify)
		if w.sometimes(3) {
			notified.Add(int64(cv.NotifyAll()))
		} else if cv.NotifyOne() {
			notified.Add(1)
		}
	}
	fns := make([]func(*worker), 0, producers+consumers)
	for p := 0; p < producers; p++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("producer %d", p)
			seq := 0
			for !ru.stopping() {
				w.set(&stLock)
				m.Lock()
				hold(w)
				for len(queue) >= capacity {
					wait(w, notFull)
				}
				queue = append(queue, [2]int{p, seq})
				seq++
				released := false
				if w.sometimes(4) { // notify with the mutex released
					release(w)
					m.Unlock()
					released = true
				}
				notify(w, notEmpty)
				if !released {
					release(w)
					m.Unlock()
				}
				w.ops.Add(1)
			}
			m.Lock()
			produced[p] = seq
			prodDone++
			if prodDone == producers {
				finished = true
			}
			m.Unlock()
			notify(w, notEmpty)
			notified.Add(int64(notEmpty.NotifyAll()))
		})
	}
	for c := 0; c < consumers; c++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("consumer %d", c)
			for {
				w.set(&stLock)
				m.Lock()
				hold(w)
				for len(queue) == 0 && !finished {
					wait(w, notEmpty)
				}
				if len(queue) == 0 && finished {
					release(w)
					m.Unlock()
					// Wake the other consumers so they see finished.
					notified.Add(int64(notEmpty.NotifyAll()))
					return
				}
				msg := queue[0]
				queue = queue[1:]
				w.checks++
				if msg[1] != lastPopped[msg[0]]+1 {
					ru.errorf("%s popped message %d of producer %d after %d: lost, duplicated or reordered", w.name, msg[1], msg[0], lastPopped[msg[0]])
				}
				lastPopped[msg[0]] = msg[1]
				notify(w, notFull)
				release(w)
				m.Unlock()
				w.ops.Add(1)
			}
		})
	}
	ru.goAll(fns...)
	for p := range produced {
		if lastPopped[p] != produced[p]-1 {
			ru.errorf("producer %d sent %d messages, the last one received was %d", p, produced[p], lastPopped[p])
		}
	}
	ru.workers[0].checks += uint64(producers) + 1
	if w, n := woken.Load(), notified.Load(); w != n {
		ru.errorf("%d waits returned notified, but the notifies reported %d threads: %s", w, n,
			map[bool]string{true: "spurious wakeups", false: "a notified thread reported a timeout"}[w > n])
	}
	ru.note("woken=%d notified=%d timed_out=%d", woken.Load(), notified.Load(), timedOut.Load())
	return ru.report()
}

// allDone reports whether every worker finished.
func (ru *run) allDone() bool {
	for _, w := range ru.workers {
		if !w.done.Load() {
			return false
		}
	}
	return true
}

func TestLotCondvar(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressCondvar(t, "lot-condvar/"+lot.CurrentBackend().Name, new(lot.Condvar), new(lot.Condvar), 3, 3)
		})
	}
}

// stressWaitGroup: a coordinator makes a group per round and hands a clone
// to each helper; helpers count themselves in, then Done or Wait; the
// coordinator Waits. Checks: after any Wait returns, every helper of that
// round has counted in; Count() is 0 at the end of a round; no lost wakeup.
func stressWaitGroup(r reporter, name string, helpers int) (ops, checks uint64) {
	ru := newRun(r, name, helpers+1)
	type round struct {
		wg *lot.WaitGroup
		in *atomic.Int64
	}
	chans := make([]chan round, helpers)
	for i := range chans {
		chans[i] = make(chan round, 1)
	}
	var waits atomic.Uint64
	fns := make([]func(*worker), 0, helpers+1)
	fns = append(fns, func(w *worker) {
		w.name = "coordinator"
		for !ru.stopping() {
			wg := lot.NewWaitGroup()
			in := new(atomic.Int64)
			for _, c := range chans {
				c <- round{wg.Clone(), in}
			}
			w.set(&stWGWait)
			wg.Wait()
			waits.Add(1)
			w.checks += 2
			if n := in.Load(); n != int64(helpers) {
				ru.errorf("coordinator: Wait returned with %d of %d helpers counted in", n, helpers)
			}
			if c := wg.Count(); c != 0 {
				ru.errorf("coordinator: Count() = %d after Wait", c)
			}
			w.ops.Add(1)
		}
		for _, c := range chans {
			close(c)
		}
	})
	for i := 0; i < helpers; i++ {
		fns = append(fns, func(w *worker) {
			w.name = fmt.Sprintf("helper %d", i)
			for rd := range chans[i] {
				rd.in.Add(1)
				if w.sometimes(3) {
					w.set(&stWGWait)
					rd.wg.Wait()
					waits.Add(1)
					w.checks++
					if n := rd.in.Load(); n != int64(helpers) {
						ru.errorf("%s: Wait returned with %d of %d helpers counted in", w.name, n, helpers)
					}
				} else {
					rd.wg.Done()
				}
				w.set(&stStart)
				w.ops.Add(1)
			}
		})
	}
	ru.goAll(fns...)
	ru.note("waits=%d", waits.Load())
	return ru.report()
}

func TestLotWaitGroup(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressWaitGroup(t, "lot-waitgroup/"+lot.CurrentBackend().Name, 5)
		})
	}
}

// TestLotOverEveryBackend runs the park, requeue, mutex and condvar workloads with
// every thread backend under the lot (GOMAXPROCS 2).
func TestLotOverEveryBackend(t *testing.T) {
	for _, b := range threadBackends() {
		t.Run(b.Name, func(t *testing.T) {
			withProcs(t, 2, func(t *testing.T) {
				withLotBackend(t, b, func() {
					stressLotPark(t, "lot-park/"+b.Name, 4, 2, 2)
					stressLotRequeue(t, "lot-requeue/"+b.Name, 4)
					stressMutex(t, "lot-mutex/"+b.Name, new(lot.Mutex), 4)
					stressCondvar(t, "lot-condvar/"+b.Name, new(lot.Condvar), new(lot.Condvar), 2, 2)
				})
			})
		})
	}
}

// TestLotTableGrowsWhileParked parks a few threads on one key, then makes
// many more threads park at once, each on its own key: the lot builds a
// ThreadData per concurrent parker and grows the hash table (rehashing the
// queues of the threads already parked). Then it unparks everything.
// Checks: every thread returns Unparked, UnparkAll finds exactly the
// threads of its key, nothing is lost in the rehash.
func TestLotTableGrowsWhileParked(t *testing.T) {
	withProcs(t, 2, func(t *testing.T) {
		const early, late = 3, 40
		ru := newRun(t, "lot-grow/"+lot.CurrentBackend().Name, early+late+1)
		keyA := new(parkKey)
		lateKeys := make([]*parkKey, late)
		for i := range lateKeys {
			lateKeys[i] = new(parkKey)
		}
		var queuedA, queuedLate atomic.Int32
		var returned atomic.Int32
		ru.rescue = func() {
			go func() {
				for returned.Load() < early+late {
					lot.UnparkAll(unsafe.Pointer(keyA), 0)
					for _, k := range lateKeys {
						lot.UnparkAll(unsafe.Pointer(k), 0)
					}
					time.Sleep(time.Millisecond)
				}
			}()
		}
		fns := make([]func(*worker), 0, early+late+1)
		parkOn := func(w *worker, k *parkKey, queued *atomic.Int32) {
			w.set(&stPark)
			res := lot.Park(unsafe.Pointer(k), func() bool { queued.Add(1); return true }, nil, nil, lot.DefaultParkToken, time.Time{})
			w.checks++
			if res.Kind != lot.ParkUnparked || res.Token != 7 {
				ru.errorf("%s: Park = %+v, want Unparked(7)", w.name, res)
			}
			returned.Add(1)
			w.ops.Add(1)
		}
		for i := 0; i < early; i++ {
			fns = append(fns, func(w *worker) { w.name = fmt.Sprintf("early %d", i); parkOn(w, keyA, &queuedA) })
		}
		for i := 0; i < late; i++ {
			fns = append(fns, func(w *worker) {
				w.name = fmt.Sprintf("late %d", i)
				for queuedA.Load() < early { // start once the early ones are queued
					runtime.Gosched()
				}
				parkOn(w, lateKeys[i], &queuedLate)
			})
		}
		fns = append(fns, func(w *worker) {
			w.name = "unparker"
			w.set(&stWaitStop)
			for queuedA.Load() < early || queuedLate.Load() < late {
				runtime.Gosched()
			}
			w.set(&stUnpark)
			// Unpark the late ones first, while the early ones stay parked
			// in a table that has grown under them.
			for i, k := range lateKeys {
				if n := lot.UnparkAll(unsafe.Pointer(k), 7); n != 1 {
					ru.errorf("UnparkAll(late key %d) = %d, want 1", i, n)
				}
				w.checks++
			}
			if n := lot.UnparkAll(unsafe.Pointer(keyA), 7); n != early {
				ru.errorf("UnparkAll(key A) = %d, want %d: threads lost in the rehash", n, early)
			}
			w.checks++
			w.ops.Add(1)
		})
		ru.goAll(fns...)
		ru.report()
	})
}

// TestUnderGC runs the lot and token workloads while another goroutine
// forces collections back to back.
func TestUnderGC(t *testing.T) {
	withProcs(t, 2, func(t *testing.T) {
		stop := make(chan struct{})
		var gcs atomic.Uint64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				runtime.GC()
				gcs.Add(1)
			}
		}()
		stressLotPark(t, "gc/lot-park", 4, 2, 2)
		stressLotRequeue(t, "gc/lot-requeue", 4)
		stressMutex(t, "gc/lot-mutex", new(lot.Mutex), 4)
		stressCondvar(t, "gc/lot-condvar", new(lot.Condvar), new(lot.Condvar), 2, 2)
		stressWaitGroup(t, "gc/lot-waitgroup", 3)
		for _, b := range tokenBackends() {
			stressTokenParker(t, "gc/token-"+b.Name, b.NewToken, 3, 1)
		}
		for _, b := range threadBackends() {
			if b.Sleeps {
				stressThreadParker(t, "gc/thread-"+b.Name, b.NewThread, 3, 1)
			}
		}
		close(stop)
		wg.Wait()
		t.Logf("forced GCs: %d", gcs.Load())
	})
}
