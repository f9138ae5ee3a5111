package stress

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/lot"
)

// Stress of the lot's RwLock family: lot.RwLock (every lock kind, upgrade,
// downgrades, timed and fair variants), lot.FairMutex and
// lot.ReentrantMutex through stressMutex, and lot.Once.

// Activity word of the RwLock checker: readers add rdOne, the upgradable
// holder rdOne+upgOne, a writer wrOne.
const (
	rdOne  = 1
	upgOne = 1 << 16
	wrOne  = 1 << 32
)

// stressRwLock: each thread takes the lock in a random mode and way, checks
// the activity word on entry (a writer alone; readers without a writer;
// at most one upgradable), sometimes yields inside, converts (upgrade,
// downgrade, downgrade to upgradable, bump) and unlocks in a random way.
// Writers increment an unprotected counter (lost increments: no mutual
// exclusion). Checks: exclusion, counter = writes, timed locks return in
// bound, no lost wakeup (watchdog).
func stressRwLock(r reporter, name string, threads int) (ops, checks uint64) {
	ru := newRun(r, name, threads)
	var l lot.RwLock
	var activity atomic.Int64
	var counter, writes, reads, upgrades, timeouts atomic.Uint64
	enter := func(w *worker, add int64, what string) {
		w.checks++
		a := activity.Add(add)
		switch {
		case add == wrOne && a != wrOne:
			ru.errorf("%s: %s entered with activity %#x: not alone", w.name, what, a-add)
		case add != wrOne && a >= wrOne:
			ru.errorf("%s: %s entered with a writer inside (activity %#x)", w.name, what, a-add)
		case add == rdOne+upgOne && a&(0xffff<<16) != upgOne:
			ru.errorf("%s: two upgradable holders (activity %#x)", w.name, a)
		}
	}
	leave := func(add int64) { activity.Add(-add) }
	write := func(w *worker) {
		counter.Store(counter.Load() + 1)
		writes.Add(1)
		if w.sometimes(8) {
			runtime.Gosched()
		}
	}
	timed := func(w *worker, what string, f func(time.Duration) bool) bool {
		d := time.Duration(w.rng.IntN(100)) * time.Microsecond
		start := time.Now()
		ok := f(d)
		if !ok {
			checkTimeoutBound(ru, what, start.Add(d), time.Now())
			timeouts.Add(1)
		}
		return ok
	}
	fns := make([]func(*worker), threads)
	for i := range fns {
		fns[i] = func(w *worker) {
			w.name = fmt.Sprintf("thread %d", i)
			for !ru.stopping() {
				w.set(&stLock)
				switch c := w.rng.IntN(10); {
				case c < 3: // writer
					var got bool
					switch w.rng.IntN(4) {
					case 0:
						got = l.TryLock()
					case 1:
						got = timed(w, "TryLockFor", l.TryLockFor)
					default:
						l.Lock()
						got = true
					}
					if !got {
						break
					}
					w.set(&stCrit)
					enter(w, wrOne, "writer")
					write(w)
					if w.sometimes(8) {
						leave(wrOne)
						l.BumpExclusive()
						enter(w, wrOne, "writer after bump")
					}
					switch w.rng.IntN(4) {
					case 0: // downgrade to a reader
						leave(wrOne)
						l.Downgrade()
						enter(w, rdOne, "downgraded reader")
						leave(rdOne)
						l.RUnlock()
					case 1:
						leave(wrOne)
						l.UnlockFair()
					default:
						leave(wrOne)
						l.Unlock()
					}
				case c < 8: // reader
					var got bool
					switch w.rng.IntN(5) {
					case 0:
						got = l.TryRLock()
					case 1:
						got = timed(w, "TryRLockFor", l.TryRLockFor)
					case 2:
						l.RLockRecursive()
						got = true
					default:
						l.RLock()
						got = true
					}
					if !got {
						break
					}
					w.set(&stCrit)
					enter(w, rdOne, "reader")
					reads.Add(1)
					if w.sometimes(8) {
						runtime.Gosched()
					}
					if w.sometimes(8) {
						leave(rdOne)
						l.BumpShared()
						enter(w, rdOne, "reader after bump")
					}
					leave(rdOne)
					l.RUnlock()
				default: // upgradable
					var got bool
					switch w.rng.IntN(4) {
					case 0:
						got = l.TryLockUpgradable()
					case 1:
						got = timed(w, "TryLockUpgradableFor", l.TryLockUpgradableFor)
					default:
						l.LockUpgradable()
						got = true
					}
					if !got {
						break
					}
					w.set(&stCrit)
					enter(w, rdOne+upgOne, "upgradable")
					upgraded := false
					switch w.rng.IntN(4) {
					case 0:
						leave(rdOne + upgOne)
						l.Upgrade()
						upgraded = true
					case 1:
						if timed(w, "TryUpgradeFor", l.TryUpgradeFor) {
							leave(rdOne + upgOne)
							upgraded = true
						}
					case 2:
						if l.TryUpgrade() {
							leave(rdOne + upgOne)
							upgraded = true
						}
					}
					if upgraded {
						upgrades.Add(1)
						enter(w, wrOne, "upgraded writer")
						write(w)
						leave(wrOne)
						if w.sometimes(2) {
							l.DowngradeToUpgradable()
							enter(w, rdOne+upgOne, "downgraded upgradable")
						} else {
							l.Unlock()
							break
						}
					}
					if w.sometimes(8) {
						leave(rdOne + upgOne)
						l.BumpUpgradable()
						enter(w, rdOne+upgOne, "upgradable after bump")
					}
					leave(rdOne + upgOne)
					if w.sometimes(2) {
						l.UnlockUpgradableFair()
					} else {
						l.UnlockUpgradable()
					}
				}
				w.ops.Add(1)
			}
		}
	}
	ru.goAll(fns...)
	l.Lock()
	if c := counter.Load(); c != writes.Load() {
		ru.errorf("unprotected counter is %d after %d writes: mutual exclusion violated", c, writes.Load())
	}
	l.Unlock()
	if l.IsLocked() {
		ru.errorf("locked after every thread unlocked")
	}
	ru.workers[0].checks++
	ru.note("writes=%d reads=%d upgrades=%d timeouts=%d", writes.Load(), reads.Load(), upgrades.Load(), timeouts.Load())
	return ru.report()
}

func TestLotRwLock(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressRwLock(t, "lot-rwlock/"+lot.CurrentBackend().Name, 6)
		})
	}
}

// TestLotFairAndReentrantMutex runs the Mutex checker over FairMutex and
// ReentrantMutex (whose owner is the OS thread: the test's own thread is
// locked too, for the final check).
func TestLotFairAndReentrantMutex(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressMutex(t, "lot-fairmutex/"+lot.CurrentBackend().Name, new(lot.FairMutex), 6)
			stressMutex(t, "lot-remutex/"+lot.CurrentBackend().Name, new(reentrantTwice), 6)
		})
	}
}

// reentrantTwice locks its ReentrantMutex twice per Lock, so that every
// acquisition also exercises re-entry.
type reentrantTwice struct{ lot.ReentrantMutex }

func (r *reentrantTwice) Lock()       { r.ReentrantMutex.Lock(); r.ReentrantMutex.Lock() }
func (r *reentrantTwice) Unlock()     { r.ReentrantMutex.Unlock(); r.ReentrantMutex.Unlock() }
func (r *reentrantTwice) UnlockFair() { r.ReentrantMutex.Unlock(); r.ReentrantMutex.UnlockFair() }

func (r *reentrantTwice) TryLock() bool {
	if !r.ReentrantMutex.TryLock() {
		return false
	}
	return r.ReentrantMutex.TryLock() // re-entry: always succeeds
}

func (r *reentrantTwice) TryLockFor(d time.Duration) bool {
	if !r.ReentrantMutex.TryLockFor(d) {
		return false
	}
	return r.ReentrantMutex.TryLock()
}

// stressOnce: rounds of a fresh Once raced by every thread; in some rounds
// the first run panics (poisoning), and the threads then either see the
// poison (CallOnce panics) or force a run. Checks: the function completes
// exactly once per round, nobody returns from CallOnce before it has, no
// lost wakeup (watchdog).
func stressOnce(r reporter, name string, threads int) (ops, checks uint64) {
	ru := newRun(r, name, threads)
	type round struct {
		once     lot.Once
		panicky  bool
		runs     atomic.Int32 // completed runs
		attempts atomic.Int32 // runs started
	}
	var cur atomic.Pointer[round]
	cur.Store(&round{})
	var gen atomic.Uint64
	var poisonSeen, forced atomic.Uint64
	fns := make([]func(*worker), threads)
	for i := range fns {
		fns[i] = func(w *worker) {
			w.name = fmt.Sprintf("thread %d", i)
			for !ru.stopping() {
				rd := cur.Load()
				w.set(&stLock)
				f := func() {
					if rd.attempts.Add(1) == 1 && rd.panicky {
						panic("stress: first run panics")
					}
					runtime.Gosched()
					rd.runs.Add(1)
				}
				poisoned := false
				func() {
					defer func() {
						if recover() != nil {
							poisoned = true
						}
					}()
					if w.sometimes(2) {
						rd.once.CallOnce(f)
					} else {
						rd.once.CallOnceForce(func(lot.OnceState) { f() })
						forced.Add(1)
					}
				}()
				w.checks++
				if poisoned {
					poisonSeen.Add(1)
				} else if rd.runs.Load() != 1 {
					ru.errorf("%s: CallOnce returned with %d completed runs", w.name, rd.runs.Load())
				}
				// One thread starts the next round now and then.
				if w.id == 0 && w.sometimes(4) {
					g := gen.Add(1)
					cur.Store(&round{panicky: g%3 == 0})
				}
				w.ops.Add(1)
			}
		}
	}
	ru.goAll(fns...)
	ru.note("rounds=%d poison_seen=%d forced=%d", gen.Load()+1, poisonSeen.Load(), forced.Load())
	return ru.report()
}

func TestLotOnce(t *testing.T) {
	for _, p := range procsMatrix {
		withProcs(t, p, func(t *testing.T) {
			stressOnce(t, "lot-once/"+lot.CurrentBackend().Name, 6)
		})
	}
}
