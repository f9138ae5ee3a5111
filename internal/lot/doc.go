// Package lot is a Go port of Rust's parking lot: parking_lot_core 0.9.12
// (the hash table of buckets, Park, UnparkOne, UnparkAll, UnparkRequeue,
// UnparkFilter, WordLock, SpinWait), parking_lot 0.12.5's RawMutex (Mutex),
// Condvar, RawRwLock (RwLock), RawFairMutex (FairMutex), ReentrantMutex,
// Once and the deadlock detector (build tag lotdeadlock), and
// crossbeam-utils 0.8.22's WaitGroup, read at parking_lot
// HEAD d20d71e and crossbeam HEAD 7de845a. Algorithms, names and guarantees
// follow upstream: FIFO order per key, threads marked unparked under the
// bucket lock and woken after it is released, eventual fairness through
// FairTimeout, a table that grows to at least three buckets per thread.
// Where Go forces a different shape, this comment says what and why.
//
// # Keys
//
// A key is an unsafe.Pointer to a live heap object (in practice the
// primitive itself: a Mutex's or Condvar's address), never a bare uintptr:
// goroutine stacks move, and an address held as an integer keeps nothing
// alive. A parked thread's ThreadData holds its key as an unsafe.Pointer,
// so the object cannot be collected while anyone is parked on it; passing
// a key to Park makes it escape to the heap. uintptr(key) is computed only
// transiently, to hash it.
//
// # How a ThreadData is found (no thread-locals)
//
// Upstream keeps one ThreadData per thread in a thread_local (falling back
// to one on the stack while TLS is being destroyed). Go has no TLS for OS
// threads, and a goroutine is not a thread. So a ThreadData is taken from a
// pool once Park's validate has passed (see "When Park takes its
// ThreadData") and given back when Park returns, when the thread is in no
// queue any more. The pool is a lock-free free list
// (a Treiber stack of slab ids with an ABA tag); the nodes live in a slab
// that never frees them. Steady state therefore allocates nothing: one pop
// and one push per Park. A new ThreadData is created only when every
// existing one is in use, i.e. when more threads are parked at once than
// ever before; that is upstream's ThreadData::new, and it does the same
// NUM_THREADS accounting and grow_hashtable. NUM_THREADS therefore counts
// ThreadData that exist, never decreases (ours are pooled, not dropped),
// and equals the highest number of simultaneous parkers: the table keeps
// three buckets per thread that can be parked at once, which is what
// LOAD_FACTOR is for.
//
// Costs of this choice against upstream's TLS: every Park that queues
// does a CAS pop and a CAS push on a free-list head shared by all threads
// of the backend (a contended cache line under heavy parking), and every
// Park loads that head once (a ParkInvalid return does no CAS on it; see
// "When Park takes its ThreadData"), and a thread may get a
// different ThreadData on each Park, so nothing per-thread survives between
// parks (upstream's deadlock detector keeps per-thread resource lists in
// ThreadData; ours keeps them per goroutine, see "Deadlock detection").
//
// # When Park takes its ThreadData
//
// Upstream's park gets its ThreadData (thread-local, free) before it locks
// the bucket. Ours is a pop and a push on the shared free list, so Park
// reorders: it locks the bucket and runs validate first, and pops a
// ThreadData only when validate passed, still holding the bucket lock (the
// free list is lock-free and touches no bucket, so this nests no lock). A
// ParkInvalid return therefore never does a CAS on the free list; it costs
// what upstream's does, the bucket lock and unlock.
//
// The exception is a new ThreadData, whose creation (upstream's
// ThreadData::new) grows the table, and growHashtable locks every bucket:
// it must never run while we hold one. So Park first loads the free list's
// head (a plain load, no CAS): if the list is empty, it creates the
// ThreadData before locking, as upstream, and on ParkInvalid puts it back.
// If the list was not empty then but is by the time of the pop (other
// threads took the last nodes), Park creates the ThreadData under the
// bucket lock without growing (slab allocation, the backend's NewThread
// and the NUM_THREADS increment touch no bucket) and runs growHashtable
// for it right after it has queued itself and unlocked the bucket, before
// beforeSleep and the sleep: the growth rehashes it with every other
// queued thread, and a wake meanwhile only disarms its parker. NUM_THREADS
// still counts every ThreadData that exists, incremented when it is
// created; in that rare case the table reaches LOAD_FACTOR buckets per
// thread a moment later than upstream's, which affects only how short
// bucket queues are, never correctness (lookups always use the current
// table and retry if it changed under them).
//
// # How long a ThreadData lives
//
// The study's chapter 001 ("ThreadData 活多久") explains upstream's care:
// a waker calls unpark_lock under the bucket lock and unpark after it, and
// the target must not exit and free its ThreadData in between (pthread:
// unpark_lock locks the parker's mutex; futex: the FUTEX_WAKE may hit freed
// memory, tolerated as EFAULT). Here no ThreadData is ever freed: the slab
// and the UnparkHandle (which references the parker) keep it reachable, and
// the GC never moves heap objects, so a late wake can never touch freed
// memory and the EFAULT case cannot arise. What can happen, exactly as
// upstream when a thread re-parks right after being woken, is that a late
// Unpark lands on the node's next user, after it re-armed the parker with
// PreparePark: the parker contract (Park loops on its own flag, "never
// returns spuriously") turns that into a harmless extra check.
//
// IS_CHEAP_TO_CONSTRUCT (parkers.Backend.CheapToConstruct) is not
// consulted: every backend's parker is built once per pooled node and
// reused, which is what upstream does through TLS for the one expensive
// parker (pthread, whose mutex and condvar are initialised lazily in
// prepare_park and destroyed with the thread); a cheap parker is simply
// never rebuilt either. Upstream's "a stack-local ThreadData while TLS is
// being destroyed" fallback has no counterpart: a pooled node is always
// available.
//
// # WordLock
//
// Upstream's WordLock builds its queue node on the stack when the parker
// IS_CHEAP_TO_CONSTRUCT, and in TLS otherwise. A goroutine stack may move
// while the thread is queued, so ours come from a second pool (wlNode),
// taken the first time a lockSlow call must queue and given back when it
// returns. Upstream's state word holds LOCKED (1), QUEUE_LOCKED (2) and the
// head node's address. A Go pointer hidden in a uintptr is invisible to the
// GC, and turning it back into a pointer trips checkptr under -race; so the
// rest of our word is the head node's slab id (id << 2), and the slab keeps
// every node reachable. The algorithm is upstream's: one CAS covers the
// lock bits and the head; LIFO push at the head; FIFO pop from the tail,
// prev pointers filled in lazily, queue_tail cached on the head; "locked
// again: release QUEUE_LOCKED and let the next unlocker wake". One
// reshaping: after its fetch_sub, unlock tests only state != 0 and leaves
// the "QUEUE_LOCKED is set" case to unlockSlow, whose loop begins with
// upstream's full test on a fresh load (same outcome, one extra call in
// that contended case), so that the uncontended unlock inlines. Upstream's
// explicit acquire fences are unneeded: Go's atomics are sequentially
// consistent and every failed CAS is followed by an explicit Load.
//
// # Parker backend
//
// The parker under the lot is the platform default of internal/parkers
// until SetBackend (or SetBackendName) installs another. Each backend has
// its own pools of ThreadData and WordLock nodes, and each node returns to
// the pool it came from, so nodes of different backends never mix; a
// parked thread keeps its node and is woken through that node's parker.
// Changing the backend while threads are parked is therefore safe; it
// affects only later parks.
//
// Callers should be goroutines locked to their OS thread
// (runtime.LockOSThread): a thread-level backend blocks the thread.
//
// # Other departures
//
//   - Go has only strong compare-and-swap; upstream's compare_exchange_weak
//     loops become CAS loops that reload the state after a failure, and
//     Relaxed/Acquire/Release orders become Go's sequentially consistent
//     atomics (stronger, never weaker).
//   - Mutex.state is a uint32 (upstream AtomicU8): Go's smallest atomic.
//   - Mutex is upstream's RawMutex with its RawMutexFair / RawMutexTimed
//     methods; there is no lock_api Mutex<T> or guard. Unlock of an
//     unlocked Mutex panics, as sync.Mutex (lock_api's guards make it
//     impossible upstream; the raw unlock is simply unsafe there).
//   - Condvar has Wait, WaitUntil and WaitFor returning "timed out" as a
//     bool (upstream: WaitTimeoutResult); the wait_while variants are not
//     ported. String gives upstream's Debug text.
//   - ParkResult is a struct {Kind, Token} with IsUnparked, standing for
//     the enum Unparked(token) | Invalid | TimedOut; RequeueOp and FilterOp
//     constants carry their type name as a prefix (RequeueOpUnparkOne),
//     since UnparkOne is also a function here.
//   - A zero time.Time deadline means "no timeout" in Park (upstream:
//     Option<Instant>::None). In Mutex.TryLockUntil and Condvar.WaitUntil
//     a zero deadline means "already passed", as the literal year-1 time.
//     A timeout over 100 years means none (upstream: Instant + d overflows
//     and to_deadline gives None; Go's time.Add would silently drop the
//     monotonic reading instead).
//   - Park accepts a nil validate (always valid) and nil beforeSleep /
//     timedOut (skipped); the unpark functions accept a nil callback
//     (DefaultUnparkToken). Upstream requires closures. The closures do
//     not escape, so callers' closures stay on the stack (0 allocations).
//   - FairTimeout keeps monotonic nanoseconds (from time.Since, the
//     monotonic clock) instead of an Instant.
//   - Buckets are padded to 64 bytes and each is its own allocation
//     (the table is a []*bucket): Go aligns 64-byte objects to 64 bytes,
//     but a single []bucket array would start 8 bytes off a cache line,
//     because since Go 1.22 a pointerful object over 512 bytes carries a
//     malloc header. TestBucketLayout checks. Cost: one extra dependent
//     load per lock_bucket. unlock_bucket_pair unlocks the first bucket
//     first (upstream: the higher address first); unlock order cannot
//     deadlock, only lock order matters.
//   - Bucket queues link threadData with ordinary Go pointers: they are
//     only touched under the bucket's WordLock.
//   - Old tables are kept on a prev chain as upstream (never freed); with
//     a GC they would stay alive anyway while any thread still uses them.
//   - Deadlock detection (upstream's optional feature) is the build tag
//     lotdeadlock; see "Deadlock detection".
//   - Condvar.NotifyAllWake (wake every waiter, no requeue) and
//     Condvar.NotifyAllResult (NotifyAll returning the UnparkResult) are
//     parkbench additions for experiment E6, not upstream API.
//   - WaitGroup handles are *WaitGroup values; Go has no Drop, so each
//     handle (the one from NewWaitGroup and every Clone) must end with
//     exactly one Done (upstream: drop) or Wait; a second use panics.
//   - The callbacks that upstream forbids to panic (parking_lot
//     core/src/parking_lot.rs:585,589,726,886,1018) may panic here: the
//     panic goes on to the caller with no bucket lock held, no ThreadData
//     lost and the queues as if the call had not happened (for a panicking
//     beforeSleep: as if the thread had timed out). The one case no
//     unwinding can repair, beforeSleep panicking after an unpark handed
//     the thread a non-default token, is fatal (fatal.go). To keep the
//     queues untouched until the callbacks have run, UnparkOne unlinks
//     its thread, UnparkRequeue appends to the destination queue and
//     UnparkFilter unlinks the chosen threads after the callback (upstream:
//     before); callbacks may not call into the lot, so they cannot tell.
//     Misuses of Mutex, Condvar and WaitGroup panic before anything is
//     queued (Condvar.Wait checks the mutex is held in its validate).
//   - Tests: upstream identifies a woken thread by its thread-local
//     ThreadData address; ours are pooled, so the FIFO tests identify
//     threads by their ParkToken. Upstream's sleeps that only let threads
//     reach their wait are replaced by checks that they are parked, its
//     recv_timeouts by watchdogs; repeat counts are scaled down unless
//     PARKBENCH_STRESS=1.
//
// # RwLock
//
// RwLock is RawRwLock (parking_lot src/raw_rwlock.rs), its state table
// and invariants on the type. Upstream parks on two keys, addr (the main
// queue: every new waiter, with a ParkToken saying what it will add to
// the state when handed the lock) and addr + 1 (the writer queue: the one
// thread holding WRITER_BIT while it waits for the readers). An address
// + 1 is no key here (keys are live heap pointers, see "Keys"), so the
// second key is the address of a second field of the RwLock, writerKey:
// distinct from the RwLock's own address, never another object's, and
// keeping the RwLock alive while the writer is parked on it. The two keys
// may hash to the same bucket or not; nothing depends on it (no operation
// locks both). Unlocks wake through UnparkFilter with upstream's filter:
// all readers, at most one upgradable or writer, nothing after a writer;
// the callback stores the accumulated state when it hands off. Departures:
// no hardware lock elision (Go has no HLE intrinsics); the state word is a
// uint64 everywhere (upstream usize); UnlockUpgradableFair is fair
// (upstream's passes false to unlock_upgradable_slow, raw_rwlock.rs:416, a
// slip); and every misuse the state word shows is refused before the state
// changes, with a panic that leaves the lock usable (upstream: unsafe fns,
// unchecked; Go's sync.RWMutex: fatal errors). The state shows an
// exclusive unlock or downgrade without WRITER_BIT or with readers
// (WRITER_BIT with readers is a writer still waiting for them, so the
// caller is not it), a read unlock with no plain reader (none at all, or
// only the upgradable holder), and an upgradable operation without
// UPGRADABLE_BIT. RUnlock is a CAS loop that checks the value it replaces
// (upstream: one fetch_sub). The state does not show who calls, and the
// reader count does not tell readers apart: releasing another thread's
// hold in the same mode (an RUnlock on behalf of another reader, Unlock
// for the writer, UnlockUpgradable or Upgrade by a plain reader while
// another thread holds the lock upgradable) goes through, and so does the
// upgradable holder's RUnlock while plain readers also hold the lock (the
// last of them is refused when it leaves); the RwLock type's comment has
// the list. models/rwlock.pml model-checks the state machine, with a
// reader's Unlock and the upgradable holder's RUnlock as misuses that
// must be refused.
//
// FairMutex is a Mutex whose Unlock is UnlockFair (raw_fair_mutex.rs).
// ReentrantMutex is lock_api's RawReentrantMutex over Mutex; upstream
// names the owner by a thread-local's address, ours by threadID: the OS
// thread id, which names a thread only for goroutines locked to theirs
// (threadid.go says what goes wrong otherwise). Once is src/once.rs; a
// panicking function (or runtime.Goexit) poisons it through a deferred
// function, upstream's PanicGuard.
//
// # Deadlock detection
//
// With -tags lotdeadlock, every lock records the keys it holds after it
// acquires and forgets them once it has released (upstream
// deadlock::acquire_resource / release_resource, which forgets before:
// ours forgets after, so that a misuse refused before the state changes
// leaves the record as it was; RwLock both keys), Park attaches the
// calling goroutine's record to the ThreadData it queues, a goroutine
// woken from an untimed Park runs upstream's on_unpark hook, and
// CheckDeadlock (upstream check_deadlock) builds the wait graph from the
// bucket queues and returns its cycles, each goroutine with its stack,
// which the deadlocked goroutine itself takes when the detector wakes it
// (it then parks for good, as upstream). Records live per goroutine, not
// per OS thread and not in the pooled ThreadData: a goroutine not locked
// to its thread may lock on one thread and unlock on another, or run on a
// thread after others, so thread-keyed records were shared unguarded and
// missed unlocks. A record is keyed by the goroutine's runtime descriptor
// on amd64 and arm64 (a few nanoseconds, read by assembly,
// deadlock_getg_*.s) and by the goroutine id elsewhere (runtime.Stack,
// about 4 µs), and guarded by a mutex against CheckDeadlock. Locks taken
// by plain goroutines and by goroutines locked to their threads are
// tracked alike. Not seen: a lock released by another goroutine than the
// one that took it stays in the taker's record (lot's Mutex and RwLock
// allow it; upstream's guards only with send_guard). Without the tag the
// hooks are empty functions and an empty embedded struct: nothing is
// stored, called or allocated (TestDeadlockHooksFree, BenchmarkLockHooks).
// Upstream's cycle search misses a cycle first entered through a
// resource; ours does not (deadlock_on.go).
//
// # Fault injection
//
// chaos.Point("lot.<name>") marks the windows a lost wakeup would hide in:
// lot.park.queued (queued and unlocked, not asleep), lot.park.timedout
// (timed out, not relocked), lot.unpark.marked (marked unparked, bucket
// unlocked, not yet woken), lot.requeue (inside unpark_requeue, both
// buckets locked), lot.wordlock.queued and lot.wordlock.marked (the same
// two windows of the WordLock), lot.parkinglot.beforesleep (beforeSleep
// has run, so a Condvar's mutex is released, not yet asleep),
// lot.hashtable.beforelock (table loaded, bucket not locked: the
// stale-table retry), lot.hashtable.grow (every old bucket locked, the new
// table not yet published), lot.mutex.parkedbit (PARKED set, not yet in
// Park), lot.mutex.unlockcb (inside unlockSlow's UnparkOne callback, bucket
// locked, state not yet written), lot.condvar.validated (queued, mutex not
// yet released), lot.condvar.relock (Park returned, mutex not yet
// relocked), lot.waitgroup.zero (count at 0, lock not yet taken),
// lot.rwlock.parkedbit (PARKED set, not yet in Park), lot.rwlock.writerparked
// (WRITER_PARKED set, the writer not yet parked on the writer key),
// lot.rwlock.wakecb (inside wake_parked_threads' callback, bucket locked)
// and lot.once.parkedbit (Once's PARKED set, not yet in Park).
package lot
