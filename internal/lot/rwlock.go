package lot

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// RwLock is parking_lot's RawRwLock (parking_lot src/raw_rwlock.rs): a
// reader-writer lock with upgradable reads, on two queues of the parking
// lot. The zero value is unlocked. It must not be copied after first use.
//
// Three kinds of holders: any number of shared (read) holders, at most one
// upgradable holder alongside them (a reader that may later Upgrade to
// exclusive without letting a writer in between), or one exclusive
// (write) holder. Lock/Unlock are the exclusive side, so *RwLock is a
// sync.Locker; RLocker gives the shared side as one.
//
// Writer priority, as upstream (the algorithm is Boost's upgrade_mutex): a
// writer that is waiting, or that holds WRITER_BIT while it waits for the
// readers to leave, blocks new readers. Writers therefore cannot be
// starved by a steady read load, and read and write phases alternate in
// the order threads started queueing. The price is recursive reads: a
// thread that holds a read lock and takes it again deadlocks if a writer
// queued in between (the writer waits for the first read, the second read
// waits for the writer). parking_lot #27 and #212 discuss it; use
// RLockRecursive (upstream's lock_shared_recursive), which ignores a
// waiting writer as long as other readers hold the lock.
//
// Fairness is upstream's eventual fairness: parked threads may be barged
// by new lockers, but on average once every 0.5 ms per bucket an unlock
// hands the lock directly to the woken threads; UnlockFair,
// UnlockUpgradableFair and the Bump methods always do.
//
// Misuse: every misuse the state word shows is refused before the state
// changes, with a panic that can be recovered: the lock is left as it was,
// usable, and a writer waiting at the time still gets it once the holders
// leave (sync.RWMutex's "Unlock of unlocked RWMutex" and "RUnlock of
// unlocked RWMutex" are fatal errors instead). The state word shows
//
//   - an exclusive unlock (Unlock, UnlockFair, BumpExclusive, Downgrade,
//     DowngradeToUpgradable) without WRITER_BIT, or with readers: WRITER
//     with readers is a writer still waiting for them in Lock or Upgrade,
//     so the caller cannot be that writer (it is, typically, one of the
//     readers);
//   - a read unlock (RUnlock, RUnlockFair, BumpShared) when no reader holds
//     the lock, or when the only reader is the upgradable holder, who must
//     leave through UnlockUpgradable;
//   - an upgradable operation (UnlockUpgradable, UnlockUpgradableFair,
//     BumpUpgradable, Upgrade, TryUpgrade..., DowngradeUpgradable) without
//     UPGRADABLE_BIT.
//
// The state word does not show who calls: the lock is not tied to a thread
// (as lock_api's raw locks and sync.RWMutex), and the reader count cannot
// tell readers apart. Not seen, so not refused: releasing another thread's
// hold in the same mode (an RUnlock for another reader, an Unlock for the
// writer, UnlockUpgradable or Upgrade by a plain reader while another
// thread holds the lock upgradable), and the upgradable holder's RUnlock
// while plain readers also hold it (it releases one of theirs; the last
// of them is refused when it leaves, its RUnlock now looking like the
// upgradable holder's). No misuse is fatal: each is refused in time.
type RwLock struct {
	// state is upstream's state word:
	//
	//	bit 0 PARKED          a thread is (or may be) parked on the main
	//	                      queue, key unsafe.Pointer(rw)
	//	bit 1 WRITER_PARKED   the thread holding WRITER_BIT is parked on the
	//	                      writer queue, key unsafe.Pointer(&rw.writerKey),
	//	                      waiting for the readers to leave; WRITER set
	//	bit 2 UPGRADABLE      an upgradable reader holds the lock (it is one
	//	                      of the readers); WRITER clear
	//	bit 3 WRITER          a writer holds the lock, or holds it pending
	//	                      the readers' exit (then READERS != 0)
	//	bits 4..              READERS: number of shared holders, ONE_READER
	//	                      each (the upgradable holder counts as one)
	//
	// PARKED may be cleared only under the main queue's bucket lock (in an
	// unpark callback, or a timed-out callback with wasLast), and
	// WRITER_PARKED only under the writer queue's: that is what keeps a
	// thread that just set the bit and is about to park from sleeping
	// unseen (its validate runs under the same bucket lock and sees the bit
	// gone).
	//
	// Upstream's word is a usize; ours is 64 bits on every platform.
	state atomic.Uint64
	// writerKey exists for its address: &rw.writerKey is the key of the
	// writer queue (upstream: addr + 1). It is inside rw, so it is a live
	// heap address distinct from rw's own (the main key) that no other
	// object can have, and holding it keeps rw alive. Non-zero size, so the
	// address is never one past the end of rw.
	writerKey byte
}

const (
	rwParkedBit       uint64 = 0b0001
	rwWriterParkedBit uint64 = 0b0010
	rwUpgradableBit   uint64 = 0b0100
	rwWriterBit       uint64 = 0b1000
	rwReadersMask     uint64 = ^uint64(0b1111)
	rwOneReader       uint64 = 0b10000
)

// Park tokens: what a parked thread will add to the state when it is
// handed the lock (upstream TOKEN_SHARED, TOKEN_EXCLUSIVE,
// TOKEN_UPGRADABLE, raw_rwlock.rs:50-52).
const (
	tokenShared     = ParkToken(rwOneReader)
	tokenExclusive  = ParkToken(rwWriterBit)
	tokenUpgradable = ParkToken(rwOneReader | rwUpgradableBit)
)

// rwUpgradeDelta is what an upgrade subtracts from the state: one reader
// and UPGRADABLE go, WRITER comes. Go's unsigned constants cannot be
// negative, so it is a variable (Add(-d) wraps, as fetch_sub).
var rwUpgradeDelta = (rwOneReader | rwUpgradableBit) - rwWriterBit

const rwOverflowMsg = "lot: RwLock reader count overflow"

func (rw *RwLock) mainKey() unsafe.Pointer    { return unsafe.Pointer(rw) }
func (rw *RwLock) writerQKey() unsafe.Pointer { return unsafe.Pointer(&rw.writerKey) }

// untilDeadline is the deadline of a TryXxxUntil: zero means "already
// passed" there (as in Mutex.TryLockUntil), but "no timeout" in Park.
func untilDeadline(deadline time.Time) time.Time {
	if deadline.IsZero() {
		return time.Unix(0, 1)
	}
	return deadline
}

// String gives upstream's Debug text without the data (lock_api prints
// "RwLock { data: .. }" or "<locked>" when it cannot read it).
func (rw *RwLock) String() string {
	if rw.IsLockedExclusive() {
		return "RwLock { data: <locked> }"
	}
	return "RwLock { .. }"
}

// ---- Exclusive ----

// Lock locks rw exclusively, parking the thread while it is held.
func (rw *RwLock) Lock() {
	if !rw.state.CompareAndSwap(0, rwWriterBit) {
		rw.lockExclusiveSlow(time.Time{})
	}
	deadlockAcquireRw(rw)
}

// TryLock locks rw exclusively if it is not held at all.
func (rw *RwLock) TryLock() bool {
	if rw.state.CompareAndSwap(0, rwWriterBit) {
		deadlockAcquireRw(rw)
		return true
	}
	return false
}

// TryLockFor locks rw exclusively, waiting at most d.
func (rw *RwLock) TryLockFor(d time.Duration) bool {
	ok := rw.state.CompareAndSwap(0, rwWriterBit) || rw.lockExclusiveSlow(toDeadline(d))
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// TryLockUntil locks rw exclusively, waiting at most until deadline.
func (rw *RwLock) TryLockUntil(deadline time.Time) bool {
	ok := rw.state.CompareAndSwap(0, rwWriterBit) || rw.lockExclusiveSlow(untilDeadline(deadline))
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// Unlock releases an exclusive lock.
//
// The deadlock detector forgets the lock after the state has changed
// (upstream, raw_rwlock.rs:95, before: its unlock cannot fail): a misuse
// refused by the slow path leaves the detector's record as it was. The
// record is read only while its owner is parked, which it cannot be in
// between.
func (rw *RwLock) Unlock() {
	if !rw.state.CompareAndSwap(rwWriterBit, 0) {
		rw.unlockExclusiveSlow(false, "Unlock")
	}
	deadlockReleaseRw(rw)
}

// UnlockFair releases an exclusive lock and hands it directly to the
// parked threads, if any.
func (rw *RwLock) UnlockFair() {
	if !rw.state.CompareAndSwap(rwWriterBit, 0) {
		rw.unlockExclusiveSlow(true, "UnlockFair")
	}
	deadlockReleaseRw(rw)
}

// BumpExclusive yields an exclusive lock to parked threads, if any, and
// takes it back (upstream bump_exclusive, raw_rwlock.rs:182).
func (rw *RwLock) BumpExclusive() {
	state := rw.state.Load()
	if !heldExclusive(state) {
		exclusiveMisuse(state, "BumpExclusive")
	}
	if state&rwParkedBit != 0 {
		rw.unlockExclusiveSlow(true, "BumpExclusive")
		deadlockReleaseRw(rw)
		rw.Lock()
	}
}

// IsLocked reports whether rw is held in any mode (racy: for assertions).
func (rw *RwLock) IsLocked() bool { return rw.state.Load()&(rwWriterBit|rwReadersMask) != 0 }

// IsLockedExclusive reports whether rw is held (or being acquired, pending
// the readers' exit) exclusively.
func (rw *RwLock) IsLockedExclusive() bool { return rw.state.Load()&rwWriterBit != 0 }

// ---- Shared ----

// RLock locks rw shared. A waiting writer blocks it (see the type's doc
// on recursive reads).
func (rw *RwLock) RLock() { rw.lockShared(false) }

// TryRLock locks rw shared if no writer holds or waits for it.
func (rw *RwLock) TryRLock() bool { return rw.tryLockShared(false) }

// TryRLockFor locks rw shared, waiting at most d.
func (rw *RwLock) TryRLockFor(d time.Duration) bool {
	return rw.tryLockSharedUntil(false, toDeadline(d))
}

// TryRLockUntil locks rw shared, waiting at most until deadline.
func (rw *RwLock) TryRLockUntil(deadline time.Time) bool {
	return rw.tryLockSharedUntil(false, untilDeadline(deadline))
}

// RLockRecursive locks rw shared even when a writer waits, as long as
// other readers hold it (upstream lock_shared_recursive): a thread that
// already holds a read lock may take another without deadlocking against
// a queued writer. It gives up writer priority while readers remain.
func (rw *RwLock) RLockRecursive() { rw.lockShared(true) }

// TryRLockRecursive is TryRLock with RLockRecursive's rule.
func (rw *RwLock) TryRLockRecursive() bool { return rw.tryLockShared(true) }

// TryRLockRecursiveFor is TryRLockFor with RLockRecursive's rule.
func (rw *RwLock) TryRLockRecursiveFor(d time.Duration) bool {
	return rw.tryLockSharedUntil(true, toDeadline(d))
}

// TryRLockRecursiveUntil is TryRLockUntil with RLockRecursive's rule.
func (rw *RwLock) TryRLockRecursiveUntil(deadline time.Time) bool {
	return rw.tryLockSharedUntil(true, untilDeadline(deadline))
}

// lockShared is upstream's lock_shared and lock_shared_recursive.
func (rw *RwLock) lockShared(recursive bool) {
	if !rw.tryLockSharedFast(recursive) {
		rw.lockSharedSlow(recursive, time.Time{})
	}
	deadlockAcquireRw(rw)
}

// tryLockShared is upstream's try_lock_shared(_recursive).
func (rw *RwLock) tryLockShared(recursive bool) bool {
	ok := rw.tryLockSharedFast(recursive) || rw.tryLockSharedSlow(recursive)
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// tryLockSharedUntil is upstream's try_lock_shared(_recursive)_{for,until};
// deadline zero means none.
func (rw *RwLock) tryLockSharedUntil(recursive bool, deadline time.Time) bool {
	ok := rw.tryLockSharedFast(recursive) || rw.lockSharedSlow(recursive, deadline)
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// RUnlock releases a shared lock. The last reader to leave wakes the
// writer waiting for the readers (WRITER_PARKED).
//
// Departure: upstream does one fetch_sub (raw_rwlock.rs:131). Ours is a
// CAS that first checks, on the very value it replaces, that there is a
// plain reader to remove, so that a misuse panics without touching the
// state: a fetch_sub on zero readers would wrap the count into the flag
// bits, where a concurrent writer could park on the writer queue and never
// be woken once the count is restored; and one by the upgradable holder
// while it is the only reader leaves UPGRADABLE with no reader, which
// UnlockUpgradable then wraps to 2^60-1 readers, dead for good.
func (rw *RwLock) RUnlock() {
	state := rw.state.Load()
	for {
		if !heldShared(state) {
			sharedMisuse(state, "RUnlock")
		}
		if rw.state.CompareAndSwap(state, state-rwOneReader) {
			break
		}
		state = rw.state.Load()
	}
	// Forget the lock only now: a refused RUnlock keeps the record (see
	// Unlock).
	deadlockReleaseRw(rw)
	// The last reader leaving while the writer waits for it: wake it.
	if state&(rwReadersMask|rwWriterParkedBit) == rwOneReader|rwWriterParkedBit {
		rw.unlockSharedSlow()
	}
}

// RUnlockFair is RUnlock (upstream unlock_shared_fair: readers never hand
// off).
func (rw *RwLock) RUnlockFair() { rw.RUnlock() }

// BumpShared yields a shared lock if a writer holds or waits for rw, and
// takes it back (upstream bump_shared, raw_rwlock.rs:175).
func (rw *RwLock) BumpShared() {
	state := rw.state.Load()
	if !heldShared(state) {
		sharedMisuse(state, "BumpShared")
	}
	if state&rwWriterBit != 0 {
		rw.RUnlock()
		rw.RLock()
	}
}

// RLocker returns a sync.Locker whose Lock and Unlock are rw's RLock and
// RUnlock (as sync.RWMutex.RLocker).
func (rw *RwLock) RLocker() sync.Locker { return (*rlocker)(rw) }

type rlocker RwLock

func (r *rlocker) Lock()   { (*RwLock)(r).RLock() }
func (r *rlocker) Unlock() { (*RwLock)(r).RUnlock() }

// ---- Upgradable ----

// LockUpgradable locks rw shared and upgradable: readers may still enter,
// but no writer and no other upgradable reader. The holder may Upgrade.
func (rw *RwLock) LockUpgradable() {
	if !rw.tryLockUpgradableFast() {
		rw.lockUpgradableSlow(time.Time{})
	}
	deadlockAcquireRw(rw)
}

// TryLockUpgradable locks rw upgradable if no writer and no upgradable
// reader holds it.
func (rw *RwLock) TryLockUpgradable() bool {
	ok := rw.tryLockUpgradableFast() || rw.tryLockUpgradableSlow()
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// TryLockUpgradableFor locks rw upgradable, waiting at most d.
func (rw *RwLock) TryLockUpgradableFor(d time.Duration) bool {
	ok := rw.tryLockUpgradableFast() || rw.lockUpgradableSlow(toDeadline(d))
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// TryLockUpgradableUntil locks rw upgradable, waiting at most until
// deadline.
func (rw *RwLock) TryLockUpgradableUntil(deadline time.Time) bool {
	ok := rw.tryLockUpgradableFast() || rw.lockUpgradableSlow(untilDeadline(deadline))
	if ok {
		deadlockAcquireRw(rw)
	}
	return ok
}

// UnlockUpgradable releases an upgradable lock.
//
// The check is stable for the holder: nobody else clears UPGRADABLE or
// takes the holder's reader away while it holds them, so the state cannot
// turn from held to not held between the check and the CAS (or the slow
// path's update).
func (rw *RwLock) UnlockUpgradable() {
	state := rw.state.Load()
	if !heldUpgradable(state) {
		upgradableMisuse("UnlockUpgradable")
	}
	if state&rwParkedBit != 0 || !rw.state.CompareAndSwap(state, state-(rwOneReader|rwUpgradableBit)) {
		rw.unlockUpgradableSlow(false)
	}
	deadlockReleaseRw(rw)
}

// UnlockUpgradableFair releases an upgradable lock and hands it to the
// parked threads, if any.
//
// Departure: upstream's unlock_upgradable_fair (raw_rwlock.rs:416) calls
// unlock_upgradable_slow(false), so it is no fairer than the plain unlock;
// ours passes true, as unlock_exclusive_fair does and as the name says.
func (rw *RwLock) UnlockUpgradableFair() {
	state := rw.state.Load()
	if !heldUpgradable(state) {
		upgradableMisuse("UnlockUpgradableFair")
	}
	if state&rwParkedBit != 0 || !rw.state.CompareAndSwap(state, state-(rwOneReader|rwUpgradableBit)) {
		rw.unlockUpgradableSlow(true)
	}
	deadlockReleaseRw(rw)
}

// BumpUpgradable yields an upgradable lock to parked threads, if any, and
// takes it back (upstream bump_upgradable, raw_rwlock.rs:420, which goes
// straight to unlock_upgradable_slow: without the check, a misuse would
// subtract an upgradable reader that is not there).
func (rw *RwLock) BumpUpgradable() {
	state := rw.state.Load()
	if !heldUpgradable(state) {
		upgradableMisuse("BumpUpgradable")
	}
	if state&rwParkedBit != 0 {
		rw.unlockUpgradableSlow(true)
		deadlockReleaseRw(rw)
		rw.LockUpgradable()
	}
}

// Upgrade turns the caller's upgradable lock into an exclusive one,
// waiting for the other readers to leave. New readers are blocked from
// the moment it starts (WRITER_BIT is set at once).
func (rw *RwLock) Upgrade() {
	rw.checkUpgradable("Upgrade")
	// fetch_sub((ONE_READER | UPGRADABLE) - WRITER): the old value.
	state := rw.state.Add(-rwUpgradeDelta) + rwUpgradeDelta
	if state&rwReadersMask != rwOneReader {
		rw.upgradeSlow(time.Time{})
	}
}

// TryUpgrade upgrades if the caller is the only reader, without waiting.
func (rw *RwLock) TryUpgrade() bool {
	rw.checkUpgradable("TryUpgrade")
	if rw.state.CompareAndSwap(rwOneReader|rwUpgradableBit, rwWriterBit) {
		return true
	}
	return rw.tryUpgradeSlow()
}

// TryUpgradeFor upgrades, waiting at most d for the other readers. On
// timeout the caller still holds its upgradable lock.
func (rw *RwLock) TryUpgradeFor(d time.Duration) bool {
	return rw.tryUpgradeUntil(toDeadline(d))
}

// TryUpgradeUntil upgrades, waiting at most until deadline for the other
// readers. On timeout the caller still holds its upgradable lock.
func (rw *RwLock) TryUpgradeUntil(deadline time.Time) bool {
	return rw.tryUpgradeUntil(untilDeadline(deadline))
}

func (rw *RwLock) tryUpgradeUntil(deadline time.Time) bool {
	rw.checkUpgradable("TryUpgrade")
	state := rw.state.Add(-rwUpgradeDelta) + rwUpgradeDelta
	if state&rwReadersMask == rwOneReader {
		return true
	}
	return rw.upgradeSlow(deadline)
}

// checkUpgradable panics if nobody holds rw upgradable: not upstream
// (unsafe fn there), a guard before the fetch_sub would corrupt the state.
// It cannot tell whether the caller is the holder; for the holder it is
// stable (see UnlockUpgradable).
func (rw *RwLock) checkUpgradable(what string) {
	if !heldUpgradable(rw.state.Load()) {
		upgradableMisuse(what)
	}
}

// ---- Downgrade ----

// Downgrade turns the caller's exclusive lock into a shared one, waking
// the parked readers (and an upgradable reader) that can now enter.
func (rw *RwLock) Downgrade() {
	rw.checkExclusive("Downgrade")
	state := rw.state.Add(rwOneReader - rwWriterBit)
	state -= rwOneReader - rwWriterBit
	if state&rwParkedBit != 0 {
		rw.downgradeSlow()
	}
}

// DowngradeToUpgradable turns the caller's exclusive lock into an
// upgradable one.
func (rw *RwLock) DowngradeToUpgradable() {
	rw.checkExclusive("DowngradeToUpgradable")
	state := rw.state.Add((rwOneReader | rwUpgradableBit) - rwWriterBit)
	state -= (rwOneReader | rwUpgradableBit) - rwWriterBit
	if state&rwParkedBit != 0 {
		rw.downgradeToUpgradableSlow()
	}
}

// DowngradeUpgradable turns the caller's upgradable lock into a plain
// shared one (upstream downgrade_upgradable).
func (rw *RwLock) DowngradeUpgradable() {
	rw.checkUpgradable("DowngradeUpgradable")
	state := rw.state.And(^rwUpgradableBit)
	if state&rwParkedBit != 0 {
		rw.downgradeSlow()
	}
}

// checkExclusive panics unless a writer holds rw alone (heldExclusive):
// a Downgrade while the writer still waits for readers would turn its
// WRITER_BIT into a phantom reader, and once that read is released the
// waiting writer would return from Lock beside the real readers. For the
// writer the check is stable: while it holds WRITER_BIT with no readers,
// only PARKED can change (tryLockShared lets a recursive reader in only
// beside other readers).
func (rw *RwLock) checkExclusive(what string) {
	if state := rw.state.Load(); !heldExclusive(state) {
		exclusiveMisuse(state, what)
	}
}

// ---- Misuse checks (not upstream: its unlocks are unsafe fns, made
// impossible to misuse by lock_api's guards) ----

// heldExclusive reports whether state shows a writer holding the lock
// alone: WRITER_BIT and no readers. WRITER_BIT with readers is a writer
// still waiting for them (waitForReaders, from Lock or Upgrade): no
// exclusive unlock can be that writer's.
func heldExclusive(state uint64) bool {
	return state&(rwWriterBit|rwReadersMask) == rwWriterBit
}

// heldShared reports whether state shows a plain reader that a read unlock
// may remove: the readers other than the upgradable holder (who counts as
// one, UPGRADABLE set) are not none. UPGRADABLE is bit 2, ONE_READER bit 4:
// (state&UPGRADABLE)<<2 is ONE_READER exactly when the upgradable holder
// is among the readers, so one comparison covers both cases.
func heldShared(state uint64) bool {
	return state&rwReadersMask > (state&rwUpgradableBit)<<2
}

// heldUpgradable reports whether state shows an upgradable holder:
// UPGRADABLE and, as it counts as a reader, at least one reader.
func heldUpgradable(state uint64) bool {
	return state&rwUpgradableBit != 0 && state&rwReadersMask != 0
}

// The misuse panics: the texts name the method and what the state showed.
const (
	rwUnlockUnlockedMsg    = "lot: Unlock of unlocked RwLock"
	rwExclusiveReadersMsg  = " of RwLock held by readers: a writer is still waiting for them, so the caller is not the writer"
	rwRUnlockUnlockedMsg   = "lot: RUnlock of unlocked RwLock"
	rwRUnlockUpgradableMsg = " of RwLock held only upgradable: the upgradable holder leaves by UnlockUpgradable"
)

// exclusiveMisuse panics for an exclusive operation (what) on a state
// that heldExclusive refused. Kept out of line: the fast paths stay small.
//
//go:noinline
func exclusiveMisuse(state uint64, what string) {
	switch {
	case state&rwWriterBit == 0 && (what == "Unlock" || what == "UnlockFair"):
		// sync.RWMutex's text.
		panic(rwUnlockUnlockedMsg)
	case state&rwWriterBit == 0:
		panic("lot: " + what + " of RwLock not locked exclusively")
	default:
		panic("lot: " + what + rwExclusiveReadersMsg)
	}
}

// sharedMisuse panics for a read unlock (what) on a state that heldShared
// refused.
//
//go:noinline
func sharedMisuse(state uint64, what string) {
	if state&rwReadersMask == 0 {
		if what == "RUnlock" {
			panic(rwRUnlockUnlockedMsg) // sync.RWMutex's text
		}
		panic("lot: " + what + " of RwLock not locked shared")
	}
	panic("lot: " + what + rwRUnlockUpgradableMsg)
}

// upgradableMisuse panics for an upgradable operation (what) without an
// upgradable holder.
//
//go:noinline
func upgradableMisuse(what string) {
	panic("lot: " + what + " of RwLock not locked upgradable")
}

// ---- Slow paths (upstream impl RawRwLock, raw_rwlock.rs:506-1160) ----

func (rw *RwLock) tryLockSharedFast(recursive bool) bool {
	state := rw.state.Load()

	// We can't allow grabbing a shared lock if there is a writer, even if
	// the writer is still waiting for the remaining readers to exit.
	if state&rwWriterBit != 0 {
		// To allow recursive locks, we make an exception and allow readers
		// to skip ahead of a pending writer to avoid deadlocking, at the
		// cost of breaking the fairness guarantees.
		if !recursive || state&rwReadersMask == 0 {
			return false
		}
	}

	// Use hardware lock elision upstream: not ported (no HLE in Go).
	if state > ^uint64(0)-rwOneReader {
		return false
	}
	return rw.state.CompareAndSwap(state, state+rwOneReader)
}

func (rw *RwLock) tryLockSharedSlow(recursive bool) bool {
	state := rw.state.Load()
	for {
		// This mirrors the condition in tryLockSharedFast.
		if state&rwWriterBit != 0 {
			if !recursive || state&rwReadersMask == 0 {
				return false
			}
		}
		if state > ^uint64(0)-rwOneReader {
			panic(rwOverflowMsg)
		}
		if rw.state.CompareAndSwap(state, state+rwOneReader) {
			return true
		}
		state = rw.state.Load()
	}
}

func (rw *RwLock) tryLockUpgradableFast() bool {
	state := rw.state.Load()

	// We can't grab an upgradable lock if there is already a writer or
	// upgradable reader.
	if state&(rwWriterBit|rwUpgradableBit) != 0 {
		return false
	}
	if state > ^uint64(0)-(rwOneReader|rwUpgradableBit) {
		return false
	}
	return rw.state.CompareAndSwap(state, state+(rwOneReader|rwUpgradableBit))
}

func (rw *RwLock) tryLockUpgradableSlow() bool {
	state := rw.state.Load()
	for {
		if state&(rwWriterBit|rwUpgradableBit) != 0 {
			return false
		}
		if state > ^uint64(0)-(rwOneReader|rwUpgradableBit) {
			panic(rwOverflowMsg)
		}
		if rw.state.CompareAndSwap(state, state+(rwOneReader|rwUpgradableBit)) {
			return true
		}
		state = rw.state.Load()
	}
}

// lockExclusiveSlow is upstream's lock_exclusive_slow: take WRITER_BIT
// through lockCommon, then wait for the readers to leave.
func (rw *RwLock) lockExclusiveSlow(deadline time.Time) bool {
	tryLock := func(state *uint64) bool {
		for {
			if *state&(rwWriterBit|rwUpgradableBit) != 0 {
				return false
			}
			// Grab WRITER_BIT if it isn't set, even if there are parked
			// threads.
			if rw.state.CompareAndSwap(*state, *state|rwWriterBit) {
				return true
			}
			*state = rw.state.Load()
		}
	}

	// Step 1: grab exclusive ownership of WRITER_BIT.
	if !rw.lockCommon(deadline, tokenExclusive, tryLock, rwWriterBit|rwUpgradableBit) {
		return false
	}

	// Step 2: wait for all remaining readers to exit the lock.
	return rw.waitForReaders(deadline, 0)
}

// unlockExclusiveSlow is upstream's unlock_exclusive_slow
// (raw_rwlock.rs:649); what names the caller for a misuse.
func (rw *RwLock) unlockExclusiveSlow(forceFair bool, what string) {
	// Not upstream (lock_api's guards make it impossible there): refuse a
	// misuse before touching the state, as sync.RWMutex, and also an
	// unlock while readers hold the lock, which cannot be the writer's
	// (heldExclusive): the callback below would store over their count
	// and the waiting writer's WRITER_BIT. Stable for the writer (see
	// checkExclusive), so the callback's stores still see its lock.
	if state := rw.state.Load(); !heldExclusive(state) {
		exclusiveMisuse(state, what)
	}
	// There are threads to unpark. Try to unpark as many as we can.
	rw.wakeParkedThreads(0, func(newState uint64, result UnparkResult) UnparkToken {
		// If we are using a fair unlock then we should keep the rwlock
		// locked and hand it off to the unparked threads.
		if result.UnparkedThreads != 0 && (forceFair || result.BeFair) {
			if result.HaveMoreThreads {
				newState |= rwParkedBit
			}
			rw.state.Store(newState)
			return tokenHandoff
		}
		// Clear the parked bit if there are no more parked threads.
		if result.HaveMoreThreads {
			rw.state.Store(rwParkedBit)
		} else {
			rw.state.Store(0)
		}
		return tokenNormal
	})
}

// lockSharedSlow is upstream's lock_shared_slow.
func (rw *RwLock) lockSharedSlow(recursive bool, deadline time.Time) bool {
	tryLock := func(state *uint64) bool {
		var spinShared SpinWait
		for {
			// This mirrors the condition in tryLockSharedFast.
			if *state&rwWriterBit != 0 {
				if !recursive || *state&rwReadersMask == 0 {
					return false
				}
			}
			if *state > ^uint64(0)-rwOneReader {
				panic(rwOverflowMsg)
			}
			if rw.state.CompareAndSwap(*state, *state+rwOneReader) {
				return true
			}
			// If the CAS failed, back off a bit to reduce contention with
			// other readers (spin_no_yield).
			spinShared.SpinNoYield()
			*state = rw.state.Load()
		}
	}
	return rw.lockCommon(deadline, tokenShared, tryLock, rwWriterBit)
}

// unlockSharedSlow is upstream's unlock_shared_slow: the last reader wakes
// the writer parked on the writer queue. Clearing WRITER_PARKED in the
// callback, under that queue's bucket lock, is safe: only one thread (the
// WRITER_BIT holder) is ever parked there.
func (rw *RwLock) unlockSharedSlow() {
	UnparkOne(rw.writerQKey(), func(UnparkResult) UnparkToken {
		rw.state.And(^rwWriterParkedBit)
		return tokenNormal
	})
}

// lockUpgradableSlow is upstream's lock_upgradable_slow.
func (rw *RwLock) lockUpgradableSlow(deadline time.Time) bool {
	tryLock := func(state *uint64) bool {
		var spinShared SpinWait
		for {
			if *state&(rwWriterBit|rwUpgradableBit) != 0 {
				return false
			}
			if *state > ^uint64(0)-(rwOneReader|rwUpgradableBit) {
				panic(rwOverflowMsg)
			}
			if rw.state.CompareAndSwap(*state, *state+(rwOneReader|rwUpgradableBit)) {
				return true
			}
			spinShared.SpinNoYield()
			*state = rw.state.Load()
		}
	}
	return rw.lockCommon(deadline, tokenUpgradable, tryLock, rwWriterBit|rwUpgradableBit)
}

// unlockUpgradableSlow is upstream's unlock_upgradable_slow.
func (rw *RwLock) unlockUpgradableSlow(forceFair bool) {
	// Just release the lock if there are no parked threads.
	state := rw.state.Load()
	for state&rwParkedBit == 0 {
		if rw.state.CompareAndSwap(state, state-(rwOneReader|rwUpgradableBit)) {
			return
		}
		state = rw.state.Load()
	}

	// There are threads to unpark. Try to unpark as many as we can.
	rw.wakeParkedThreads(0, func(newState uint64, result UnparkResult) UnparkToken {
		// If we are using a fair unlock then we should keep the rwlock
		// locked and hand it off to the unparked threads.
		state := rw.state.Load()
		if forceFair || result.BeFair {
			// Fall back to a normal unpark on overflow. Panicking is not
			// allowed in parking_lot callbacks.
			for {
				base := state - (rwOneReader | rwUpgradableBit)
				ns := base + newState
				if ns < base {
					break
				}
				if result.HaveMoreThreads {
					ns |= rwParkedBit
				} else {
					ns &^= rwParkedBit
				}
				if rw.state.CompareAndSwap(state, ns) {
					return tokenHandoff
				}
				state = rw.state.Load()
			}
		}

		// Otherwise just release the upgradable lock and update PARKED_BIT.
		for {
			ns := state - (rwOneReader | rwUpgradableBit)
			if result.HaveMoreThreads {
				ns |= rwParkedBit
			} else {
				ns &^= rwParkedBit
			}
			if rw.state.CompareAndSwap(state, ns) {
				return tokenNormal
			}
			state = rw.state.Load()
		}
	})
}

// tryUpgradeSlow is upstream's try_upgrade_slow.
func (rw *RwLock) tryUpgradeSlow() bool {
	state := rw.state.Load()
	for {
		if state&rwReadersMask != rwOneReader {
			return false
		}
		if rw.state.CompareAndSwap(state, state-(rwOneReader|rwUpgradableBit)+rwWriterBit) {
			return true
		}
		state = rw.state.Load()
	}
}

// upgradeSlow is upstream's upgrade_slow: WRITER_BIT is already ours, wait
// for the other readers. On timeout waitForReaders gives back what
// upgrade took (prevValue), so the caller holds its upgradable lock again.
func (rw *RwLock) upgradeSlow(deadline time.Time) bool {
	deadlockReleaseRw(rw)
	ok := rw.waitForReaders(deadline, rwOneReader|rwUpgradableBit)
	deadlockAcquireRw(rw)
	return ok
}

// downgradeSlow is upstream's downgrade_slow: wake the parked readers; if
// the thread at the head is a writer, nobody.
func (rw *RwLock) downgradeSlow() {
	rw.wakeParkedThreads(rwOneReader, func(_ uint64, result UnparkResult) UnparkToken {
		// Clear the parked bit if there are no more parked threads.
		if !result.HaveMoreThreads {
			rw.state.And(^rwParkedBit)
		}
		return tokenNormal
	})
}

// downgradeToUpgradableSlow is upstream's downgrade_to_upgradable_slow.
func (rw *RwLock) downgradeToUpgradableSlow() {
	rw.wakeParkedThreads(rwOneReader|rwUpgradableBit, func(_ uint64, result UnparkResult) UnparkToken {
		if !result.HaveMoreThreads {
			rw.state.And(^rwParkedBit)
		}
		return tokenNormal
	})
}

// wakeParkedThreads is upstream's wake_parked_threads: unpark the threads
// at the head of the main queue that can take the lock together, given
// newState, the state the lock will have for them (0: released; ONE_READER:
// downgraded; ...). The filter adds each woken thread's token to newState
// and stops at the first one that no longer fits (a writer after anyone,
// anything after a writer), skipping upgradable lockers and writers while an
// upgradable reader is in; callback sees the final newState.
//
// Common code for waking up parked threads after releasing WRITER_BIT or
// UPGRADABLE_BIT.
func (rw *RwLock) wakeParkedThreads(newState uint64, callback func(uint64, UnparkResult) UnparkToken) {
	filter := func(tok ParkToken) FilterOp {
		token := uint64(tok)
		s := newState

		// If we are waking up a writer, don't wake anything else.
		if s&rwWriterBit != 0 {
			return FilterOpStop
		}

		// Otherwise wake *all* readers and one upgrader/writer.
		if token&(rwUpgradableBit|rwWriterBit) != 0 && s&rwUpgradableBit != 0 {
			// Skip writers and upgradable readers if we already have a
			// writer/upgradable reader.
			return FilterOpSkip
		}
		newState = s + token
		return FilterOpUnpark
	}
	UnparkFilter(rw.mainKey(), filter, func(result UnparkResult) UnparkToken {
		chaos.Point("lot.rwlock.wakecb")
		return callback(newState, result)
	})
}

// waitForReaders is upstream's wait_for_readers: the caller holds
// WRITER_BIT; wait (spin, then park on the writer queue with
// WRITER_PARKED set) until the reader count is zero. prevValue is what the
// caller had before taking WRITER_BIT (0 for a writer, ONE_READER |
// UPGRADABLE for an upgrade): on timeout it is restored and the main queue
// is woken as after an unlock.
//
// No missed wakeup: WRITER_PARKED is set before parking, and validate
// (under the writer queue's bucket lock) checks that readers remain and
// WRITER_PARKED is still set. The last reader's RUnlock sees
// WRITER_PARKED in the value its CAS replaced, and its UnparkOne takes the
// same bucket lock to clear the bit: either our validate ran first (we are
// queued and get woken) or it sees the bit clear or no readers (Invalid:
// we loop and see readers == 0).
func (rw *RwLock) waitForReaders(deadline time.Time, prevValue uint64) bool {
	// At this point WRITER_BIT is already set, we just need to wait for
	// the remaining readers to exit the lock.
	var spin SpinWait
	state := rw.state.Load()
	for state&rwReadersMask != 0 {
		// Spin a few times to wait for readers to exit.
		if spin.Spin() {
			state = rw.state.Load()
			continue
		}

		// Set the parked bit.
		if state&rwWriterParkedBit == 0 {
			if !rw.state.CompareAndSwap(state, state|rwWriterParkedBit) {
				state = rw.state.Load()
				continue
			}
		}

		// Window: WRITER_PARKED set, not yet queued on the writer queue.
		chaos.Point("lot.rwlock.writerparked")

		// Park our thread until we are woken up by an unlock. Using the
		// second key, there is only one thread ever parked there.
		r := Park(rw.writerQKey(),
			func() bool {
				state := rw.state.Load()
				return state&rwReadersMask != 0 && state&rwWriterParkedBit != 0
			},
			nil,
			func(_ unsafe.Pointer, _ bool) {
				// wasLast is always true: only the writer parks here.
				rw.state.And(^rwWriterParkedBit)
			},
			tokenExclusive, deadline)
		switch r.Kind {
		case ParkUnparked, ParkInvalid:
			// We still need to re-check the state if we are unparked,
			// since a previous writer timing out could have allowed
			// another reader to sneak in before we parked.
			state = rw.state.Load()
			continue
		case ParkTimedOut:
			// We need to release WRITER_BIT and revert back to our previous
			// value. We also wake up any threads that might be waiting on
			// WRITER_BIT.
			state := rw.state.Add(prevValue - rwWriterBit)
			state -= prevValue - rwWriterBit
			if state&rwParkedBit != 0 {
				rw.wakeParkedThreads(prevValue, func(_ uint64, result UnparkResult) UnparkToken {
					// Clear the parked bit if there are no more parked
					// threads.
					if !result.HaveMoreThreads {
						rw.state.And(^rwParkedBit)
					}
					return tokenNormal
				})
			}
			return false
		}
	}
	return true
}

// lockCommon is upstream's lock_common: the slow path of every lock kind.
// tryLock attempts the acquisition from *state (updating it on failure);
// the thread parks on the main queue with token while any of
// validateFlags is set.
//
// No missed wakeup: PARKED is set before parking and validate (under the
// main queue's bucket lock) checks PARKED and that the lock is still held
// in a blocking mode. Every unlocker that could let us in either finds
// PARKED set and wakes through wakeParkedThreads, which takes the same
// bucket lock, or released before we set PARKED (our CAS then fails, or
// validate sees the change).
func (rw *RwLock) lockCommon(deadline time.Time, token ParkToken,
	tryLock func(*uint64) bool, validateFlags uint64) bool {
	var spin SpinWait
	state := rw.state.Load()
	for {
		// Attempt to grab the lock.
		if tryLock(&state) {
			return true
		}

		// If there are no parked threads, try spinning a few times.
		if state&(rwParkedBit|rwWriterParkedBit) == 0 && spin.Spin() {
			state = rw.state.Load()
			continue
		}

		// Set the parked bit.
		if state&rwParkedBit == 0 {
			if !rw.state.CompareAndSwap(state, state|rwParkedBit) {
				state = rw.state.Load()
				continue
			}
		}

		// Window: PARKED set, not yet queued.
		chaos.Point("lot.rwlock.parkedbit")

		// Park our thread until we are woken up by an unlock.
		r := Park(rw.mainKey(),
			func() bool {
				state := rw.state.Load()
				return state&rwParkedBit != 0 && state&validateFlags != 0
			},
			nil,
			func(_ unsafe.Pointer, wasLast bool) {
				// Clear the parked bit while holding the queue lock. There
				// can only be one thread on the queue, so it's safe to
				// clear it.
				if wasLast {
					rw.state.And(^rwParkedBit)
				}
			},
			token, deadline)
		switch r.Kind {
		case ParkUnparked:
			if r.Token == tokenHandoff {
				// The thread that unparked us passed the lock on to us
				// directly without unlocking it.
				return true
			}
		case ParkInvalid:
		case ParkTimedOut:
			return false
		}

		// Loop back and try locking again.
		spin.Reset()
		state = rw.state.Load()
	}
}
