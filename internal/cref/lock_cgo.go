//go:build linux && cgo

package cref

// The Go side of parkbench lock's C (lock.h, lock.c): a pthread_mutex_t
// and a pthread_rwlock_t the Go `pthread` implementations lock through one
// cgo call per operation, and the whole benchmark loops of parking_lot's
// benchmark/src/bin/mutex.rs and rwlock.rs (run_benchmark) in C threads
// (pthread_create), with no Go runtime and no cgo crossing per
// acquisition: the c-pthread and c-spin floors.

/*
#include "lock.h"
*/
import "C"

import (
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// LockAvailable returns nil: the C lock benchmark and the cgo pthread
// mutex run here.
func LockAvailable() error { return nil }

// LockRun runs the benchmark loop entirely in C threads. It blocks for
// cfg.Duration plus thread start and join.
func LockRun(cfg LockRunConfig) (LockRunResult, error) {
	if cfg.Threads < 1 || cfg.Locks < 1 || cfg.SampleEvery < 1 || cfg.SampleEvery&(cfg.SampleEvery-1) != 0 {
		return LockRunResult{}, fmt.Errorf("cref: bad lock run %+v", cfg)
	}
	if cfg.Pattern == PatternSkew && cfg.Threads != 2 {
		return LockRunResult{}, fmt.Errorf("cref: the skew pattern has exactly 2 threads, not %d", cfg.Threads)
	}
	if cfg.Mode == LockOwn && (cfg.Pattern != PatternLoop || cfg.Locks != 1 || cfg.Plugin == nil) {
		return LockRunResult{}, fmt.Errorf("cref: a library's own lock loop runs the loop pattern on one lock, not %+v", cfg)
	}
	var wall, cpu C.int64_t
	var cerr C.int
	r := C.pb_lk_run_once(C.int(cfg.Mode), foreign(cfg.Mode, cfg.Plugin), C.int(cfg.Pattern), C.int(cfg.Threads), C.int(cfg.Locks),
		C.int(cfg.WorkIn), C.int(cfg.WorkBetween), C.int64_t(cfg.HoldSleep), C.int64_t(cfg.Duration),
		C.int(cfg.SampleEvery), C.uint64_t(cfg.Seed), &wall, &cpu, &cerr)
	if r == nil {
		return LockRunResult{}, fmt.Errorf("cref: starting %d C lock threads: %w", cfg.Threads, syscall.Errno(cerr))
	}
	defer C.pb_lk_free(r)
	res := LockRunResult{WallNs: int64(wall), CPUNs: int64(cpu), Counts: make([]int64, cfg.Threads), Locked: int64(C.pb_lk_locked(r)), Checked: int64(C.pb_lk_checked(r))}
	for i := range res.Counts {
		res.Counts[i] = int64(C.pb_lk_count(r, C.int(i)))
	}
	for b := 0; b < C.PB_LK_BUCKETS; b++ {
		var n int64
		for i := 0; i < cfg.Threads; i++ {
			n += int64(C.pb_lk_hist(r, C.int(i), C.int(b)))
		}
		if n > 0 {
			res.Waits = append(res.Waits, [2]int64{int64(C.pb_lk_bucket_low(C.int(b))), n})
		}
	}
	if cfg.Mode == LockOwn {
		if err := ownChecks(r, cfg, res); err != nil {
			return LockRunResult{}, err
		}
	}
	return res, nil
}

// ownChecks refuses, by name, a library's own lock loop whose figures do
// not add up: on each thread the count it returned must be its count word
// and its sampled waits must be one in SampleEvery acquisitions from the
// first (the loop times exactly those); and the lock's own counter,
// incremented under the lock, must equal the checked acquisitions (else two
// holders overlapped).
func ownChecks(r *C.pb_lk_run, cfg LockRunConfig, res LockRunResult) error {
	name := C.GoString((*C.pbwd_foreign)(cfg.Plugin).who.impl)
	mask := int64(cfg.SampleEvery - 1)
	for i, n := range res.Counts {
		if c := int64(C.pb_lk_counted(r, C.int(i))); c != n {
			return fmt.Errorf("implementation %q: its own lock loop returned %d acquisitions on thread %d, but its count word says %d",
				name, n, i, c)
		}
		var waits int64
		for b := 0; b < C.PB_LK_BUCKETS; b++ {
			waits += int64(C.pb_lk_hist(r, C.int(i), C.int(b)))
		}
		if want := (n + mask) / (mask + 1); waits != want {
			return fmt.Errorf("implementation %q: its own lock loop returned %d acquisitions on thread %d but recorded %d sampled waits, not %d (one in %d, from the first)",
				name, n, i, waits, want, cfg.SampleEvery)
		}
	}
	if res.Checked != res.Locked {
		return fmt.Errorf("implementation %q: its own lock loop broke mutual exclusion: its threads made %d checked acquisitions but the lock's counter, incremented under the lock, says %d",
			name, res.Checked, res.Locked)
	}
	return nil
}

// LockWorkNs is the C work unit's cost in ns per iteration, measured over
// iters iterations.
func LockWorkNs(iters int) float64 { return float64(C.pb_lk_work_ns(C.long(iters))) }

// LockUncontendedNs is one C thread's lock+unlock pair of mode in ns, over
// iters pairs (no cgo crossing inside).
func LockUncontendedNs(mode LockMode, plugin unsafe.Pointer, iters int) float64 {
	return float64(C.pb_lk_uncontended_ns(C.int(mode), foreign(mode, plugin), C.long(iters)))
}

// foreign is plugin (ext.Impl.C: a pbwd_foreign) for LockPlugin and
// LockOwn, else nil.
func foreign(mode LockMode, plugin unsafe.Pointer) *C.pbwd_foreign {
	if (mode != LockPlugin && mode != LockOwn) || plugin == nil {
		return nil
	}
	return (*C.pbwd_foreign)(plugin)
}

// CgoCallNs is the cost of one empty cgo call in ns (the crossing the Go
// pthread implementation pays twice per acquisition), over iters calls.
func CgoCallNs(iters int) float64 {
	t0 := time.Now()
	for i := 0; i < iters; i++ {
		C.pb_nop()
	}
	return float64(time.Since(t0).Nanoseconds()) / float64(iters)
}

// PthreadMutex is a glibc pthread_mutex_t (default type) in C memory
// between 320-byte pads; Lock and Unlock are one cgo call each.
type PthreadMutex struct{ l *C.pb_lk }

// NewPthreadMutex allocates and initialises one. Free it with Free.
func NewPthreadMutex() (*PthreadMutex, error) {
	l := C.pb_mutex_new()
	if l == nil {
		return nil, fmt.Errorf("cref: allocating a pthread mutex: %w", syscall.ENOMEM)
	}
	return &PthreadMutex{l}, nil
}

// NewPthreadPIMutex allocates and initialises one with
// PTHREAD_PRIO_INHERIT (glibc's priority-inheriting mutex: its owner is
// the locking thread's TID, so a goroutine must stay locked to its OS
// thread from Lock to Unlock). Free it with Free.
func NewPthreadPIMutex() (*PthreadMutex, error) {
	var cerr C.int
	l := C.pb_mutex_new_pi(&cerr)
	if l == nil {
		return nil, fmt.Errorf("cref: a PTHREAD_PRIO_INHERIT mutex: %w", syscall.Errno(cerr))
	}
	return &PthreadMutex{l}, nil
}

// Lock is pthread_mutex_lock.
func (m *PthreadMutex) Lock() { C.pb_mutex_lock(m.l) }

// Unlock is pthread_mutex_unlock.
func (m *PthreadMutex) Unlock() { C.pb_mutex_unlock(m.l) }

// Free destroys the mutex; it must be unlocked and unused.
func (m *PthreadMutex) Free() {
	if m.l != nil {
		C.pb_mutex_free(m.l)
		m.l = nil
	}
}

// RwRun runs rwlock.rs's loop entirely in C threads on one
// pthread_rwlock_t. It blocks for cfg.Duration plus thread start and join.
func RwRun(cfg RwRunConfig) (RwRunResult, error) {
	if cfg.Readers < 0 || cfg.Writers < 0 || cfg.Readers+cfg.Writers < 1 || cfg.SampleEvery < 1 || cfg.SampleEvery&(cfg.SampleEvery-1) != 0 {
		return RwRunResult{}, fmt.Errorf("cref: bad rwlock run %+v", cfg)
	}
	var wall, cpu C.int64_t
	var cerr C.int
	r := C.pb_rw_run_once(C.int(cfg.Readers), C.int(cfg.Writers), C.int(cfg.WorkIn), C.int(cfg.WorkBetween),
		C.int64_t(cfg.Duration), C.int(cfg.SampleEvery), &wall, &cpu, &cerr)
	if r == nil {
		return RwRunResult{}, fmt.Errorf("cref: starting %d C rwlock threads: %w", cfg.Readers+cfg.Writers, syscall.Errno(cerr))
	}
	defer C.pb_rw_free(r)
	res := RwRunResult{WallNs: int64(wall), CPUNs: int64(cpu), Written: int64(C.pb_rw_locked(r)), Overlaps: int64(C.pb_rw_overlaps(r))}
	for i := 0; i < cfg.Writers; i++ {
		res.Writers = append(res.Writers, int64(C.pb_rw_count(r, C.int(i))))
		res.WriteWaitMaxNs = max(res.WriteWaitMaxNs, int64(C.pb_rw_wait_max(r, C.int(i))))
	}
	for i := cfg.Writers; i < cfg.Writers+cfg.Readers; i++ {
		res.Readers = append(res.Readers, int64(C.pb_rw_count(r, C.int(i))))
	}
	return res, nil
}

// PthreadRwLock is a glibc pthread_rwlock_t (default attributes: readers
// preferred) in C memory between 320-byte pads; every method is one cgo
// call.
type PthreadRwLock struct{ l *C.pb_rw }

// NewPthreadRwLock allocates and initialises one. Free it with Free.
func NewPthreadRwLock() (*PthreadRwLock, error) {
	l := C.pb_rwlock_new()
	if l == nil {
		return nil, fmt.Errorf("cref: allocating a pthread rwlock: %w", syscall.ENOMEM)
	}
	return &PthreadRwLock{l}, nil
}

// RLock is pthread_rwlock_rdlock.
func (m *PthreadRwLock) RLock() { C.pb_rwlock_rdlock(m.l) }

// RUnlock is pthread_rwlock_unlock.
func (m *PthreadRwLock) RUnlock() { C.pb_rwlock_unlock(m.l) }

// Lock is pthread_rwlock_wrlock.
func (m *PthreadRwLock) Lock() { C.pb_rwlock_wrlock(m.l) }

// Unlock is pthread_rwlock_unlock.
func (m *PthreadRwLock) Unlock() { C.pb_rwlock_unlock(m.l) }

// Free destroys the rwlock; it must be unlocked and unused.
func (m *PthreadRwLock) Free() {
	if m.l != nil {
		C.pb_rwlock_free(m.l)
		m.l = nil
	}
}
