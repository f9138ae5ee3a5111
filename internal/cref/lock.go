package cref

import (
	"time"
	"unsafe"
)

// LockMode is the lock of the C lock benchmark (parkbench lock's c-pthread
// and c-spin floor).
type LockMode int

// Lock modes; the values match PB_LK_PTHREAD / PB_LK_SPIN in lock_cgo.go.
const (
	LockPthread LockMode = 0 // glibc pthread_mutex_t, default (normal) type
	LockSpin    LockMode = 1 // test-and-test-and-set, pause, bounded exponential backoff
	// LockPlugin is a plugin's pb_mutex (include/parkbench.h) called
	// through its function pointers: LockRunConfig.Plugin.
	LockPlugin LockMode = 2
	// LockPthreadPI is pthread_mutex_t with PTHREAD_PRIO_INHERIT: glibc
	// takes a free one with a CAS of 0 -> TID and goes to FUTEX_LOCK_PI
	// and FUTEX_UNLOCK_PI on contention.
	LockPthreadPI LockMode = 3
	// LockOwn runs the plugin's own lock loop (ABI version 2, struct
	// pb_loops's lock: its lock inlined into the loop) on each C thread,
	// on one lock; the pattern is PatternLoop and Locks is 1. Its count,
	// sampled waits and the lock's counter are checked (LockRun).
	LockOwn LockMode = 4
)

// LockPattern is what each C thread does around the lock.
type LockPattern int

// Patterns; the values match PB_LK_LOOP / PB_LK_HOLDSLEEP / PB_LK_SKEW.
const (
	// PatternLoop is parking_lot's benchmark/src/bin/mutex.rs: lock,
	// WorkIn units, unlock, WorkBetween units.
	PatternLoop LockPattern = 0
	// PatternHoldSleep is WebKit's LockFairnessTest: lock, sleep
	// HoldSleep, unlock, WorkBetween units.
	PatternHoldSleep LockPattern = 1
	// PatternSkew is golang/go#13086's lockskew with two threads: thread
	// 0 loops {lock; sleep HoldSleep; unlock}, thread 1 loops {sleep
	// HoldSleep; lock; unlock}.
	PatternSkew LockPattern = 2
)

// LockRunConfig is one timed run of the C lock benchmark.
type LockRunConfig struct {
	Mode        LockMode
	Pattern     LockPattern
	Threads     int
	Locks       int // 1, or each acquisition picks one of Locks at random
	WorkIn      int // work-unit iterations inside the lock
	WorkBetween int // work-unit iterations between acquisitions
	HoldSleep   time.Duration
	Duration    time.Duration
	// SampleEvery: one acquisition in SampleEvery has its wait timed
	// (PatternSkew times every one).
	SampleEvery int
	Seed        uint64
	// Plugin is the struct pb_impl of a LockPlugin run.
	Plugin unsafe.Pointer
}

// LockRunResult is what one run measured.
type LockRunResult struct {
	Counts []int64 // acquisitions per thread
	WallNs int64   // from the barrier's release to the stop flag
	CPUNs  int64   // RUSAGE_SELF user+system over the same window
	// Locked is the sum of the locks' own counters, incremented under
	// the lock by each checked acquisition; Checked counts those (every
	// acquisition, but with no work on one lock only the timed 1 in
	// SampleEvery, as the Go loops). They are equal unless mutual
	// exclusion failed.
	Locked, Checked int64
	// Waits are the sampled waits (ns) as (value, count) pairs: each
	// value is the lower bound of a log-linear bucket with 128 sub-buckets
	// per power of two (relative error below 1%).
	Waits [][2]int64
}

// RwRunConfig is one timed run of the C rwlock benchmark (parking_lot
// benchmark/src/bin/rwlock.rs): Writers threads take the write lock and
// Readers the read lock of one pthread_rwlock_t, each with the same work
// inside and between.
type RwRunConfig struct {
	Readers, Writers    int
	WorkIn, WorkBetween int // work-unit iterations
	Duration            time.Duration
	SampleEvery         int // one write acquisition in SampleEvery has its wait timed
}

// RwRunResult is what one rwlock run measured.
type RwRunResult struct {
	Readers, Writers []int64 // acquisitions per thread of each class
	WallNs, CPUNs    int64
	// Written is the write lock's own counter, incremented under it: it
	// equals the sum of Writers unless two writers overlapped.
	Written int64
	// Overlaps counts read acquisitions that saw a writer inside.
	Overlaps int64
	// WriteWaitMaxNs is the longest sampled write-lock wait.
	WriteWaitMaxNs int64
}
