package lot

import (
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/inject"
	"github.com/parkbench/parkbench/internal/parkers"
)

// threadData is parking_lot::ThreadData: one thread's entry in a bucket
// queue. It is taken from its backend's pool once Park's validate has
// passed and given back at the end (see doc.go), so outside Park it
// belongs to nobody.
type threadData struct {
	poolLink
	// pool is the backend pool this node came from and returns to; fixed.
	pool *backendPool
	// parker is built once by pool.backend; its own contract says who may
	// call what.
	parker parkers.ThreadParker
	// deadlockTD is the deadlock detector's per-thread record (build tag
	// lotdeadlock; empty otherwise, deadlock_off.go).
	//lint:ignore U1000 empty unless built with the lotdeadlock tag
	deadlockTD

	// key is the key this thread is parked on. The owner stores it under
	// the bucket lock before queueing; unpark_requeue changes it, holding
	// the locks of both buckets. Read under the bucket lock, and without it
	// by lockBucketChecked (hence atomic). Holding the unsafe.Pointer also
	// keeps the key's object alive while anyone is parked on it.
	key unsafe.Pointer

	// nextInQueue links the bucket's FIFO queue; bucket lock only.
	nextInQueue *threadData
	// unparkToken is written by the waker under the bucket lock before
	// UnparkLock; read by the owner after Park returns (ordered by the
	// parker's release/acquire) or after relocking the bucket.
	unparkToken UnparkToken
	// parkToken is written by the owner under the bucket lock before
	// queueing; read by unpark_filter under the bucket lock.
	parkToken ParkToken
	// parkedWithTimeout is written by the owner under the bucket lock (used
	// by upstream's deadlock detector only).
	parkedWithTimeout bool
}

func (td *threadData) loadKey() unsafe.Pointer   { return atomic.LoadPointer(&td.key) }
func (td *threadData) storeKey(k unsafe.Pointer) { atomic.StorePointer(&td.key, k) }

// ParkToken is a value a parked thread attaches to itself, for unpark_filter.
type ParkToken uintptr

// UnparkToken is a value an unparker passes to the thread it unparks.
type UnparkToken uintptr

const (
	// DefaultParkToken is upstream's DEFAULT_PARK_TOKEN.
	DefaultParkToken ParkToken = 0
	// DefaultUnparkToken is upstream's DEFAULT_UNPARK_TOKEN.
	DefaultUnparkToken UnparkToken = 0
)

// ParkResultKind says how a Park ended.
type ParkResultKind uint8

const (
	// ParkUnparked: another thread unparked us; ParkResult.Token holds its
	// token.
	ParkUnparked ParkResultKind = iota + 1
	// ParkInvalid: the validate callback returned false.
	ParkInvalid
	// ParkTimedOut: the deadline passed.
	ParkTimedOut
)

func (k ParkResultKind) String() string {
	switch k {
	case ParkUnparked:
		return "Unparked"
	case ParkInvalid:
		return "Invalid"
	case ParkTimedOut:
		return "TimedOut"
	}
	return "ParkResultKind(?)"
}

// ParkResult is upstream's enum ParkResult { Unparked(UnparkToken),
// Invalid, TimedOut }.
type ParkResult struct {
	Kind  ParkResultKind
	Token UnparkToken // set only when Kind == ParkUnparked
}

// IsUnparked reports whether another thread unparked us.
func (r ParkResult) IsUnparked() bool { return r.Kind == ParkUnparked }

// Unparked returns ParkResult::Unparked(tok), for comparisons.
func Unparked(tok UnparkToken) ParkResult { return ParkResult{Kind: ParkUnparked, Token: tok} }

// UnparkResult is the result of an unpark operation.
type UnparkResult struct {
	// UnparkedThreads is the number of threads unparked.
	UnparkedThreads int
	// RequeuedThreads is the number of threads requeued.
	RequeuedThreads int
	// HaveMoreThreads says whether threads remain in the queue. Upstream:
	// "This only returns true if a thread was unparked" (for
	// unpark_requeue's single-thread ops and unpark_filter it is also set
	// by a requeued or skipped thread).
	HaveMoreThreads bool
	// BeFair is true on average once every 0.5 ms per bucket, and only if
	// a thread was unparked: switch to a fair unlock for this unlock.
	BeFair bool
}

// RequeueOp is what UnparkRequeue should do.
type RequeueOp uint8

const (
	// RequeueOpAbort aborts the operation without doing anything.
	RequeueOpAbort RequeueOp = iota
	// RequeueOpUnparkOneRequeueRest unparks one thread and requeues the
	// rest onto the target queue.
	RequeueOpUnparkOneRequeueRest
	// RequeueOpRequeueAll requeues all threads onto the target queue.
	RequeueOpRequeueAll
	// RequeueOpUnparkOne unparks one thread and leaves the rest parked; no
	// requeuing.
	RequeueOpUnparkOne
	// RequeueOpRequeueOne requeues one thread and leaves the rest parked on
	// the original queue.
	RequeueOpRequeueOne
)

func (op RequeueOp) String() string {
	switch op {
	case RequeueOpAbort:
		return "Abort"
	case RequeueOpUnparkOneRequeueRest:
		return "UnparkOneRequeueRest"
	case RequeueOpRequeueAll:
		return "RequeueAll"
	case RequeueOpUnparkOne:
		return "UnparkOne"
	case RequeueOpRequeueOne:
		return "RequeueOne"
	}
	return "RequeueOp(?)"
}

// FilterOp is what UnparkFilter should do with one thread.
type FilterOp uint8

const (
	// FilterOpUnpark unparks the thread and continues scanning.
	FilterOpUnpark FilterOp = iota
	// FilterOpSkip leaves the thread parked and continues scanning.
	FilterOpSkip
	// FilterOpStop leaves the thread parked and stops scanning.
	FilterOpStop
)

// smallHandles is the SmallVec<[_; 8]> of upstream's unpark_all and
// unpark_filter: up to 8 wakes need no heap allocation.
const smallHandles = 8

// Park parks the current thread in the queue for key.
//
// validate is called with the queue locked; if it returns false, Park
// returns ParkInvalid at once. Otherwise the thread is appended to the
// queue (FIFO) and the queue is unlocked, then beforeSleep is called, and
// the thread sleeps until unparked or until deadline (zero: no timeout).
//
// timedOut is called with the queue locked, only on a timeout, with the key
// of the queue the thread was in (it differs from key after a requeue) and
// whether it was the last thread parked on that key.
//
// Rules, as upstream: key must point to a live object you control (the
// parking lot keeps it reachable while threads are parked on it); validate
// and timedOut run under a bucket lock and must not call into this
// package; beforeSleep runs unlocked and may call UnparkOne, UnparkAll,
// UnparkRequeue or UnparkFilter, but not Park. A nil validate counts as
// "always true"; nil beforeSleep / timedOut are skipped (an extension).
//
// Panics (not upstream, which forbids them: parking_lot
// core/src/parking_lot.rs:585,589): a panic in a callback goes on to Park's
// caller with the lot intact: no bucket lock held, no ThreadData lost,
// nothing left queued. If validate panics, nothing was queued. If
// beforeSleep panics, the thread leaves the queue as a timed-out one does,
// timedOut included (so the caller's state stays right), unless an unpark
// has already taken it: then Park waits for that wake and drops its token.
// A token other than DefaultUnparkToken may carry ownership (a Mutex
// handoff), which would be lost with it, so that case is fatal (see
// fatal). If timedOut panics, the thread is already out of the queue.
//
// The caller should be locked to its OS thread (runtime.LockOSThread):
// the thread, not only the goroutine, sleeps in the backend's parker.
func Park(key unsafe.Pointer, validate func() bool, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	// Upstream takes its ThreadData from a thread-local before locking the
	// bucket. Ours comes from a shared pool (two CASes on a head all
	// threads share), so we take it only once validate has passed: the
	// ParkInvalid path never touches the free list. See doc.go, "When Park
	// takes its ThreadData", for the invariants.
	p := currentPool.Load()
	if p == nil || p.threads.empty() {
		// No pool yet, or it looks empty: a new ThreadData is likely
		// needed, and creating one may grow the table, which locks every
		// bucket; so take it now, before we lock ours (upstream's order).
		return parkNewThreadData(p, key, validate, beforeSleep, timedOut, parkToken, deadline)
	}

	// Lock the bucket for the given key (lockBucket, its first try inline:
	// see tryLockBucket).
	b, current := tryLockBucket(key)
	if !current {
		// The rest of Park, after lock_bucket's loop: out of line, so that
		// nothing here is needed after a call but validate's, and Go
		// stores Park's arguments to the stack after the bucket CAS, not
		// before it.
		return parkLockSlow(p, b, key, validate, beforeSleep, timedOut, parkToken, deadline)
	}

	// If the validation function fails, just return. Everything after a
	// passed validate is out of line (parkValidated), so that this path,
	// E12's self-wake, stores as little as it can between the bucket
	// lock's two locked instructions (docs/findings.md, "The port's fast
	// paths").
	//
	// The guard: nothing is queued yet, so if validate panics it is
	// enough to unlock b, and the panic goes on to our caller. It is a
	// deferred closure over one stack word, and it is Park's own
	// (open-coded) defer, not a helper's: the helper's frame and call cost
	// the pair 12 instructions. It is also the unlock of a failed
	// validate: that path returns at once and the deferred call, which
	// runs at every return anyway, releases b: one unlock on the path
	// instead of two tests and an unlock (the pair's 188 instructions
	// became 182; docs/findings.md, "Fifth pass"). held is cleared only when validate
	// passed, before anything else happens, so on every other way out of
	// Park (parkValidated returning or panicking) the closure finds nil.
	if validate != nil {
		held := b
		defer func() {
			if held != nil {
				held.mutex.unlock()
			}
		}()
		if !validate() {
			return ParkResult{Kind: ParkInvalid} // the deferred call unlocks b
		}
		held = nil
	}
	return parkValidated(p, b, nil, key, beforeSleep, timedOut, parkToken, deadline)
}

// parkNewThreadData is Park when there was no pool yet (p nil) or it
// looked empty: it takes (likely creates) a ThreadData before it locks the
// bucket, as upstream does.
func parkNewThreadData(p *backendPool, key unsafe.Pointer, validate func() bool, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	if p == nil {
		p = pool()
	}
	td := p.getThreadData()
	return parkLocked(p, lockBucket(key), td, key, validate, beforeSleep, timedOut, parkToken, deadline)
}

// parkLockSlow is Park after a first try at the bucket lock that failed:
// held is the stale bucket it locked, or nil (see tryLockBucket).
func parkLockSlow(p *backendPool, held *bucket, key unsafe.Pointer, validate func() bool, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	return parkLocked(p, lockBucketSlow(key, held), nil, key, validate, beforeSleep, timedOut, parkToken, deadline)
}

// parkLocked is Park once b is locked, on the paths out of line: td is
// the ThreadData taken before the lock, or nil.
func parkLocked(p *backendPool, b *bucket, td *threadData, key unsafe.Pointer, validate func() bool, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	if validate != nil && !callValidateTD(validate, b, td) {
		b.mutex.unlock()
		if td != nil {
			p.putThreadData(td)
		}
		return ParkResult{Kind: ParkInvalid}
	}
	return parkValidated(p, b, td, key, beforeSleep, timedOut, parkToken, deadline)
}

// parkValidated is Park once validate has passed: b is locked; td is the
// ThreadData taken before the lock, or nil.
func parkValidated(p *backendPool, b *bucket, td *threadData, key unsafe.Pointer, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	// Take a ThreadData now, under the bucket lock: pop is lock-free and
	// touches no bucket. If the pool ran dry since the check above (other
	// threads popped the last nodes), create one but do not grow the table
	// here: growHashtable locks every bucket, ours included. growTo is
	// then the NUM_THREADS to grow for, once the bucket is unlocked.
	var growTo uint
	if td == nil {
		if td = p.threads.pop(); td == nil {
			td, growTo = p.newThreadData()
		}
	}
	r := park(td, b, key, beforeSleep, timedOut, parkToken, deadline, growTo)
	// We are out of every queue now (whoever unparked us unlinked us, or
	// we unlinked ourselves under the lock), so the node can be reused.
	td.pool.putThreadData(td)
	return r
}

// validateGuard unlocks b (and gives back td, if any) unless validate
// returned (b cleared).
type validateGuard struct {
	b  *bucket
	td *threadData
}

func (g *validateGuard) release() {
	if g.b != nil {
		g.b.mutex.unlock()
		if g.td != nil {
			g.td.pool.putThreadData(g.td)
		}
	}
}

// callValidateTD runs Park's validate with b locked and td (if not nil)
// taken early: if validate panics, nothing is queued yet, so the guard
// unlocks b and gives td back, and the panic goes on to Park's caller.
func callValidateTD(validate func() bool, b *bucket, td *threadData) bool {
	g := validateGuard{b: b, td: td}
	defer g.release()
	ok := validate()
	g.b = nil
	return ok
}

// callBeforeSleep runs Park's beforeSleep: td is queued and its bucket
// unlocked. Upstream forbids a panic here (parking_lot
// core/src/parking_lot.rs:589); unwinding out of Park would leave td in
// the queue, where it would take a later wake meant for a live waiter (and,
// on a Mutex, the lock with it). So on a panic, leaveAfterPanic takes td
// out of the queue before the panic goes on.
func callBeforeSleep(td *threadData, beforeSleep func(), timedOut func(key unsafe.Pointer, wasLast bool)) {
	returned := false
	defer func() {
		if !returned {
			leaveAfterPanic(td, timedOut)
		}
	}()
	beforeSleep()
	returned = true
}

// leaveAfterPanic is the way out of Park for a thread whose beforeSleep
// panicked: td is queued (perhaps requeued since) or already unparked, and
// it holds no lock. It gives td back to its pool; the panic goes on.
func leaveAfterPanic(td *threadData, timedOut func(key unsafe.Pointer, wasLast bool)) {
	// A waker unlinks a thread and marks it (UnparkLock) under the lock of
	// the bucket it is queued in, and requeueing moves it under both
	// buckets' locks; so once we hold the bucket of our current key, we
	// are either in its queue, and nobody can wake us any more once we
	// leave it, or we have been marked unparked.
	key, b := lockBucketChecked(td)
	if leaveQueue(td, b, key, timedOut) {
		// The parker is armed and will never be woken: the next owner of
		// td re-arms it with PreparePark.
		b.mutex.unlock()
		td.pool.putThreadData(td)
		return
	}
	b.mutex.unlock()
	// Marked unparked: let the wake land before td is reused (some
	// backends' Unpark blocks until its target waits, e.g. keyed events).
	// It is near: the waker wakes right after releasing the bucket lock.
	td.parker.Park()
	if td.unparkToken != DefaultUnparkToken {
		fatal("lot: Park's beforeSleep panicked after the thread was unparked with a token: the token, which may hand over a lock, is lost")
	}
	td.pool.putThreadData(td)
}

// callTimedOut runs Park's timedOut with b locked and td already out of
// its queue: if it panics, it is enough to unlock b and give td back.
func callTimedOut(timedOut func(key unsafe.Pointer, wasLast bool), key unsafe.Pointer, wasLast bool, b *bucket, td *threadData) {
	returned := false
	defer func() {
		if !returned {
			b.mutex.unlock()
			td.pool.putThreadData(td)
		}
	}()
	timedOut(key, wasLast)
	returned = true
}

// leaveQueue removes td from b's queue, where it is parked on key, calls
// timedOut, and reports whether td was there (false: an unpark took it).
// b is locked.
func leaveQueue(td *threadData, b *bucket, key unsafe.Pointer, timedOut func(key unsafe.Pointer, wasLast bool)) bool {
	// Remove our thread from the queue, and find out whether another
	// thread is parked on the same key.
	var previous *threadData
	link := &b.queueHead
	current := b.queueHead
	wasLast := true
	for current != nil {
		if current == td {
			next := current.nextInQueue
			*link = next
			if b.queueTail == current {
				b.queueTail = previous
			} else {
				// Scan the rest of the queue for other entries with the key.
				for scan := next; scan != nil; scan = scan.nextInQueue {
					if scan.loadKey() == key {
						wasLast = false
						break
					}
				}
			}
			// Tell the caller we timed out, and whether we were the last
			// thread on the queue.
			if timedOut != nil {
				callTimedOut(timedOut, key, wasLast, b, td)
			}
			return true
		}
		if current.loadKey() == key {
			wasLast = false
		}
		link = &current.nextInQueue
		previous = current
		current = *link
	}
	return false
}

// park is Park once validate has passed: b is locked, td is ours.
func park(td *threadData, b *bucket, key unsafe.Pointer, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time, growTo uint) ParkResult {
	// Append our thread data to the queue and unlock the bucket.
	// PreparePark comes before the unlock: once we are in the queue and the
	// lock is released, a waker may UnparkLock us at any moment, and that
	// must find the parker armed.
	td.parkedWithTimeout = !deadline.IsZero()
	td.nextInQueue = nil
	td.storeKey(key)
	td.parkToken = parkToken
	deadlockOnPark(td)
	td.parker.PreparePark()
	if b.queueHead != nil {
		b.queueTail.nextInQueue = td
	} else {
		b.queueHead = td
	}
	b.queueTail = td
	b.mutex.unlock()

	// A ThreadData created under the bucket lock (Park) still owes its
	// grow_hashtable. We are queued: the growth moves us to the new table
	// with everyone else, and a wake meanwhile only disarms our parker.
	if growTo != 0 {
		growHashtable(growTo)
	}

	// Window: queued and unlocked, not yet asleep. A wake arriving here is
	// not lost: UnparkLock already disarmed the parker, so Park returns.
	chaos.Point("lot.park.queued")

	// Invoke the pre-sleep callback.
	if beforeSleep != nil {
		callBeforeSleep(td, beforeSleep, timedOut)
	}

	// Window: beforeSleep has run (a Condvar's mutex is released), not
	// yet asleep; a notify may come now and must not be lost.
	chaos.Point("lot.parkinglot.beforesleep")

	// Park our thread and determine whether we were woken by an unpark or
	// by our timeout. This is not precise: we can still be unparked, since
	// we are still in the queue.
	unparked := true
	if deadline.IsZero() {
		td.parker.Park()
		// The deadlock detector's on_unpark hook (lotdeadlock only).
		deadlockOnUnpark(td)
	} else {
		unparked = td.parker.ParkUntil(deadline)
	}

	// If we were unparked, return now.
	if unparked {
		return Unparked(td.unparkToken)
	}

	// Window: timed out, not yet relocked; an unpark may still come.
	chaos.Point("lot.park.timedout")

	// Lock our bucket again. The table may have been rehashed meanwhile,
	// and our key may have changed if we were requeued.
	key, b = lockBucketChecked(td)

	// Now check again whether we were unparked or timed out. Unlike the
	// first check this one is precise: we hold the bucket lock, and a
	// waker marks us (UnparkLock) only while holding it.
	if !td.parker.TimedOut() {
		b.mutex.unlock()
		return Unparked(td.unparkToken)
	}

	// We timed out, so remove our thread from the queue. There is no way
	// for it to have been removed if we really timed out.
	if !leaveQueue(td, b, key, timedOut) {
		b.mutex.unlock()
		panic("lot: timed-out thread not found in its queue")
	}
	b.mutex.unlock()
	return ParkResult{Kind: ParkTimedOut}
}

// UnparkOne unparks one thread from the queue for key, the one parked
// longest (FIFO).
//
// callback runs with the queue locked, before the thread is woken; it gets
// an UnparkResult saying whether a thread was found and whether more
// remain, and returns the token passed to the unparked thread (ignored if
// none). It also runs when nobody was found. It must not call into this
// package. If it panics (upstream forbids it: parking_lot
// core/src/parking_lot.rs:726), the panic goes on with the queue untouched
// and unlocked. The UnparkResult is also returned. A nil callback passes
// DefaultUnparkToken.
func UnparkOne(key unsafe.Pointer, callback func(UnparkResult) UnparkToken) UnparkResult {
	// Lock the bucket for the given key (lockBucket, its first try inline:
	// see tryLockBucket).
	b, current := tryLockBucket(key)
	if !current {
		b = lockBucketSlow(key, b)
	}

	// Find a thread with a matching key. The rest of the work is out of
	// line (unparkOneFound, unparkNobody): with no call after the lock but
	// the unlock, this path keeps the bucket in a register, and nothing is
	// stored between the two locked instructions, which on x86 wait for
	// every earlier store to drain (docs/findings.md, "The port's fast
	// paths").
	var previous *threadData
	link := &b.queueHead
	for td := b.queueHead; td != nil; td = *link {
		if td.loadKey() == key {
			return unparkOneFound(key, callback, b, link, previous, td)
		}
		link = &td.nextInQueue
		previous = td
	}

	// No thread with a matching key was found in the bucket.
	if callback != nil {
		return unparkNobody(callback, b)
	}
	b.mutex.unlock()
	return UnparkResult{}
}

// unparkNobody is UnparkOne's end when nobody is parked on the key and
// there is a callback: it runs with b locked, then b is unlocked.
func unparkNobody(callback func(UnparkResult) UnparkToken, b *bucket) UnparkResult {
	callUnparkOneCallback(callback, UnparkResult{}, b)
	b.mutex.unlock()
	return UnparkResult{}
}

// unparkOneFound is UnparkOne once it found current, parked on key, at
// *link (previous before it, nil at the head); b is locked.
func unparkOneFound(key unsafe.Pointer, callback func(UnparkResult) UnparkToken, b *bucket, link **threadData, previous, current *threadData) UnparkResult {
	// Scan the rest of the queue for other entries with the key.
	var result UnparkResult
	next := current.nextInQueue
	for scan := next; scan != nil; scan = scan.nextInQueue {
		if scan.loadKey() == key {
			result.HaveMoreThreads = true
			break
		}
	}

	// Invoke the callback before waking the thread. Upstream unlinks the
	// thread first; the callback may not call into the lot, so it cannot
	// tell, and if it panics the queue is still intact
	// (callUnparkOneCallback unlocks the bucket).
	result.UnparkedThreads = 1
	result.BeFair = b.fairTimeout.shouldTimeout()
	token := DefaultUnparkToken
	if callback != nil {
		token = callUnparkOneCallback(callback, result, b)
	}

	// Remove the thread from the queue.
	*link = next
	if b.queueTail == current {
		b.queueTail = previous
	}

	// Set the token for the target thread.
	current.unparkToken = token

	// Mark the thread unparked while we hold the lock (so a timed-out
	// thread relocking the bucket sees it was unparked), release the
	// queue, and only then make the syscall: the queue is not held across
	// the wake.
	h := current.parker.UnparkLock()
	b.mutex.unlock()
	chaos.Point("lot.unpark.marked")
	inject.Wake(inject.Lot) // -tags parkinject only: a slower wake path
	h.Unpark()
	return result
}

// callUnparkOneCallback runs UnparkOne's callback with b locked and the
// queue untouched: if it panics, it is enough to unlock b.
func callUnparkOneCallback(callback func(UnparkResult) UnparkToken, result UnparkResult, b *bucket) UnparkToken {
	returned := false
	defer func() {
		if !returned {
			b.mutex.unlock()
		}
	}()
	token := callback(result)
	returned = true
	return token
}

// UnparkAll unparks every thread in the queue for key, passing token to
// each, and returns how many it unparked. No be_fair is computed.
func UnparkAll(key unsafe.Pointer, token UnparkToken) int {
	// Lock the bucket for the given key.
	b := lockBucket(key)

	// Remove all threads with the given key in the bucket.
	var small [smallHandles]parkers.UnparkHandle
	handles := small[:0]
	var previous *threadData
	link := &b.queueHead
	current := b.queueHead
	for current != nil {
		if current.loadKey() == key {
			// Remove the thread from the queue.
			next := current.nextInQueue
			*link = next
			if b.queueTail == current {
				b.queueTail = previous
			}
			// Set the token for the target thread.
			current.unparkToken = token
			// Don't wake threads while holding the queue lock (see
			// UnparkOne); for now just record whom to wake.
			handles = append(handles, current.parker.UnparkLock())
			current = next
		} else {
			link = &current.nextInQueue
			previous = current
			current = *link
		}
	}

	// Unlock the bucket.
	b.mutex.unlock()

	// Now that we are outside the lock, wake all the threads we removed.
	n := len(handles)
	wakeHandles(handles)
	return n
}

// UnparkRequeue removes all threads from the queue for from, optionally
// unparks the first one, and requeues the rest onto the queue for to.
//
// validate is called with both queues locked; its RequeueOp says what to
// do, or to abort. callback is also called with both queues locked, with
// the op and an UnparkResult (how many were unparked and requeued, whether
// threads remain); it returns the token for the unparked thread (ignored if
// none). Both must not call into this package. If either panics
// (upstream forbids it: parking_lot core/src/parking_lot.rs:886), the
// panic goes on with both queues as they were and unlocked. A nil callback
// passes DefaultUnparkToken.
func UnparkRequeue(from, to unsafe.Pointer, validate func() RequeueOp,
	callback func(RequeueOp, UnparkResult) UnparkToken) UnparkResult {
	// Lock the two buckets for the given keys.
	bFrom, bTo := lockBucketPair(from, to)

	// If validate or callback panics, the deferred undo puts the threads
	// already taken back in their queue and unlocks both buckets; the panic
	// goes on to our caller.
	var result UnparkResult
	var requeueHead, requeueTail, wakeup *threadData
	returned := false
	defer func() {
		if !returned {
			undoRequeue(bFrom, from, wakeup, requeueHead, requeueTail)
			unlockBucketPair(bFrom, bTo)
		}
	}()

	// If the validation function fails, just return.
	op := validate()
	if op == RequeueOpAbort {
		returned = true
		unlockBucketPair(bFrom, bTo)
		return result
	}

	chaos.Point("lot.requeue")

	// Remove all threads with the given key in the source bucket.
	var previous *threadData
	link := &bFrom.queueHead
	current := bFrom.queueHead
	for current != nil {
		if current.loadKey() != from {
			link = &current.nextInQueue
			previous = current
			current = *link
			continue
		}
		// Remove the thread from the queue.
		next := current.nextInQueue
		*link = next
		if bFrom.queueTail == current {
			bFrom.queueTail = previous
		}

		// Prepare the first thread for wakeup and requeue the rest.
		if (op == RequeueOpUnparkOneRequeueRest || op == RequeueOpUnparkOne) && wakeup == nil {
			wakeup = current
			result.UnparkedThreads = 1
		} else {
			if requeueHead != nil {
				requeueTail.nextInQueue = current
			} else {
				requeueHead = current
			}
			requeueTail = current
			// The new key is stored with both buckets locked: a timed-out
			// thread's lockBucketChecked re-checks it after locking.
			current.storeKey(to)
			result.RequeuedThreads++
		}
		if op == RequeueOpUnparkOne || op == RequeueOpRequeueOne {
			// Scan the rest of the queue for other entries with the key.
			for scan := next; scan != nil; scan = scan.nextInQueue {
				if scan.loadKey() == from {
					result.HaveMoreThreads = true
					break
				}
			}
			break
		}
		current = next
	}

	// Invoke the callback before waking the thread. Upstream appends the
	// requeued threads to the destination queue first; the callback may
	// not call into the lot, so it cannot tell, and if it panics the undo
	// has only bFrom's queue to restore.
	if result.UnparkedThreads != 0 {
		result.BeFair = bFrom.fairTimeout.shouldTimeout()
	}
	token := DefaultUnparkToken
	if callback != nil {
		token = callback(op, result)
	}
	returned = true

	// Add the requeued threads to the destination bucket, in order.
	if requeueHead != nil {
		requeueTail.nextInQueue = nil
		if bTo.queueHead != nil {
			bTo.queueTail.nextInQueue = requeueHead
		} else {
			bTo.queueHead = requeueHead
		}
		bTo.queueTail = requeueTail
	}

	// See UnparkOne for why we mark under the lock and wake after it.
	if wakeup != nil {
		wakeup.unparkToken = token
		h := wakeup.parker.UnparkLock()
		unlockBucketPair(bFrom, bTo)
		chaos.Point("lot.unpark.marked")
		h.Unpark()
	} else {
		unlockBucketPair(bFrom, bTo)
	}
	return result
}

// undoRequeue puts back the threads an UnparkRequeue whose validate or
// callback panicked had taken out of bFrom's queue: wakeup (the first, if
// any), then requeueHead..requeueTail, at the front of the queue with
// their key set back to from. Both buckets are locked. Every thread taken
// was parked on from before any thread still there (the scan takes them
// from the front), so the front keeps the FIFO order per key.
func undoRequeue(bFrom *bucket, from unsafe.Pointer, wakeup, requeueHead, requeueTail *threadData) {
	head, tail := requeueHead, requeueTail
	for t := head; t != nil; t = t.nextInQueue {
		t.storeKey(from)
		if t == tail {
			break
		}
	}
	if wakeup != nil {
		wakeup.nextInQueue = head
		if head == nil {
			tail = wakeup
		}
		head = wakeup
	}
	if head == nil {
		return
	}
	tail.nextInQueue = bFrom.queueHead
	if bFrom.queueHead == nil {
		bFrom.queueTail = tail
	}
	bFrom.queueHead = head
}

// UnparkFilter unparks threads from the front of the queue for key as
// filter decides from each one's ParkToken: FilterOpUnpark unparks it,
// FilterOpSkip leaves it and goes on, FilterOpStop leaves it and stops.
//
// callback is called with the queue locked, with an UnparkResult (how many
// were unparked, whether parked threads remain); it returns the token for
// every unparked thread. filter and callback must not call into this
// package. If either panics (upstream forbids it: parking_lot
// core/src/parking_lot.rs:1018), the panic goes on with the queue
// untouched and unlocked. A nil callback passes DefaultUnparkToken.
func UnparkFilter(key unsafe.Pointer, filter func(ParkToken) FilterOp,
	callback func(UnparkResult) UnparkToken) UnparkResult {
	// Lock the bucket for the given key.
	b := lockBucket(key)

	// If filter or callback panics, the queue is still untouched (threads
	// are unlinked only after both ran): unlocking b is enough.
	returned := false
	defer func() {
		if !returned {
			b.mutex.unlock()
		}
	}()

	// Go through the queue looking for threads with a matching key, and
	// collect the ones to unpark, in queue order.
	var smallThreads [smallHandles]*threadData
	threads := smallThreads[:0]
	var result UnparkResult
scan:
	for current := b.queueHead; current != nil; current = current.nextInQueue {
		if current.loadKey() != key {
			continue
		}
		// Call the filter with the thread's ParkToken.
		switch filter(current.parkToken) {
		case FilterOpUnpark:
			threads = append(threads, current)
		case FilterOpSkip:
			result.HaveMoreThreads = true
		case FilterOpStop:
			result.HaveMoreThreads = true
			break scan
		}
	}

	// Invoke the callback before waking the threads.
	result.UnparkedThreads = len(threads)
	if result.UnparkedThreads != 0 {
		result.BeFair = b.fairTimeout.shouldTimeout()
	}
	token := DefaultUnparkToken
	if callback != nil {
		token = callback(result)
	}
	returned = true

	// Remove the chosen threads from the queue, in one walk (they are in
	// queue order); pass the token to each and mark it. Upstream unlinks
	// each as the filter chooses it; the filter and the callback may not
	// call into the lot, so they cannot tell.
	var small [smallHandles]parkers.UnparkHandle
	handles := small[:0]
	var previous *threadData
	link := &b.queueHead
	current := b.queueHead
	for i := 0; i < len(threads); {
		if current != threads[i] {
			link = &current.nextInQueue
			previous = current
			current = *link
			continue
		}
		*link = current.nextInQueue
		if b.queueTail == current {
			b.queueTail = previous
		}
		current.unparkToken = token
		handles = append(handles, current.parker.UnparkLock())
		threads[i] = nil
		current = *link
		i++
	}

	b.mutex.unlock()

	// Now that we are outside the lock, wake the threads we removed.
	wakeHandles(handles)
	return result
}

// wakeHandles performs the wakes of threads marked unparked under a bucket
// lock; the caller has released that lock (marking under it and waking after
// it is what keeps the syscalls out of the critical section). Each handle is
// cleared after use, so a small on-stack array held by the caller keeps no
// parker reachable.
func wakeHandles(handles []parkers.UnparkHandle) {
	if len(handles) > 0 {
		chaos.Point("lot.unpark.marked")
	}
	for i, h := range handles {
		inject.Wake(inject.Lot) // -tags parkinject only: a slower wake path, per thread woken
		h.Unpark()
		handles[i] = nil
	}
}
