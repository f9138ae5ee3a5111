package lot

import (
	"testing"
	"time"
	"unsafe"
)

// The self-wake pair's anatomy (docs/findings.md, "Fifth pass"): what
// BenchmarkSelfwakePair costs without the two things Go adds to the port
// that parking_lot_core does not pay for. scripts/vs-rust.sh modes times
// them beside the pair, the pair's four locked instructions and
// parking_lot_core's own pair, round by round:
//
//	inline     the pair's own code (tryLockBucket, the queue scan,
//	           WordLock's unlock, Park's pool check) with no call: validate
//	           is known and inlined, and a known validate needs no guard.
//	           This is what rustc makes of parking_lot_core's pair: it
//	           monomorphises park and unpark_one for their closures and
//	           inlines them into the loop.
//	unguarded  UnparkOne and a Park without the validate guard: Go's calls
//	           (two to the lot, one indirect to validate, each with Go's
//	           argument spills: its calling convention has no
//	           callee-saved registers), no defer.
//	pair       Park itself: the same, plus the guard, an open-coded defer
//	           that unlocks the bucket if validate panics. Upstream forbids
//	           the panic (parking_lot core/src/parking_lot.rs:585); Rust
//	           would pay for such a guard only on the unwind path.
//
// parkUnguarded and selfwakeInline are copies of Park's and UnparkOne's
// fast paths for this measurement only; Park keeps its guard.
// TestSelfwakeAnatomyCopies checks that each leaves the lot as Park does.

// parkUnguarded is Park with validate called bare: a panic in validate
// would leave the bucket locked. For the anatomy benchmarks only.
func parkUnguarded(key unsafe.Pointer, validate func() bool, beforeSleep func(),
	timedOut func(key unsafe.Pointer, wasLast bool), parkToken ParkToken, deadline time.Time) ParkResult {
	p := currentPool.Load()
	if p == nil || p.threads.empty() {
		return parkNewThreadData(p, key, validate, beforeSleep, timedOut, parkToken, deadline)
	}
	b, current := tryLockBucket(key)
	if !current {
		return parkLockSlow(p, b, key, validate, beforeSleep, timedOut, parkToken, deadline)
	}
	if validate != nil && !validate() {
		b.mutex.unlock()
		return ParkResult{Kind: ParkInvalid}
	}
	return parkValidated(p, b, nil, key, beforeSleep, timedOut, parkToken, deadline)
}

// selfwakeInline runs n self-wake pairs written out, with no call on
// their path: UnparkOne(key, nil) on a key nobody is parked on, then
// Park(key, refuse, ...) with a validate the compiler sees and inlines.
// It reports false where the real calls would have taken another path (a
// parked thread found, no pool yet, a validate that passed); the
// benchmark then fails.
func selfwakeInline(key unsafe.Pointer, n int) bool {
	for range n {
		// UnparkOne's path when nobody is parked on key.
		b, current := tryLockBucket(key)
		if !current {
			b = lockBucketSlow(key, b)
		}
		for td := b.queueHead; td != nil; td = td.nextInQueue {
			if td.loadKey() == key {
				b.mutex.unlock()
				return false
			}
		}
		b.mutex.unlock()

		// Park's path when validate fails.
		p := currentPool.Load()
		if p == nil || p.threads.empty() {
			return false
		}
		b, current = tryLockBucket(key)
		if !current {
			b = lockBucketSlow(key, b)
		}
		ok := refuse()
		b.mutex.unlock()
		if ok {
			return false
		}
	}
	return true
}

// refuse is the self-wake's validate.
func refuse() bool { return false }

func BenchmarkSelfwakeInline(b *testing.B) {
	var key int
	k := unsafe.Pointer(&key)
	Park(k, refuse, nil, nil, DefaultParkToken, time.Time{}) // makes the pool
	b.ResetTimer()
	if !selfwakeInline(k, b.N) {
		b.Fatal("the inline pair left its path (a parked thread, no pool, or validate passed)")
	}
}

func BenchmarkSelfwakeUnguarded(b *testing.B) {
	var key int
	k := unsafe.Pointer(&key)
	invalid := func() bool { return false }
	for b.Loop() {
		UnparkOne(k, nil)
		parkUnguarded(k, invalid, nil, nil, DefaultParkToken, time.Time{})
	}
}

// TestSelfwakeAnatomyCopies: the two copies take the self-wake's path and
// leave the key's bucket unlocked, as UnparkOne and Park do.
func TestSelfwakeAnatomyCopies(t *testing.T) {
	var key int
	k := unsafe.Pointer(&key)
	invalid := func() bool { return false }
	if r := Park(k, invalid, nil, nil, DefaultParkToken, time.Time{}); r.Kind != ParkInvalid {
		t.Fatalf("Park: %v, want ParkInvalid", r.Kind)
	}
	if r := parkUnguarded(k, invalid, nil, nil, DefaultParkToken, time.Time{}); r.Kind != ParkInvalid {
		t.Fatalf("parkUnguarded: %v, want ParkInvalid", r.Kind)
	}
	if !selfwakeInline(k, 3) {
		t.Fatal("selfwakeInline left the self-wake's path")
	}
	b := lockBucket(k)
	if s := b.mutex.state.Load(); s != wlLockedBit {
		t.Fatalf("bucket state %#x after the copies, want only our lock", s)
	}
	b.mutex.unlock()
}
