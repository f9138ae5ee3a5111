//go:build unix && cgo

package parkers

/*
#cgo linux CFLAGS: -D_GNU_SOURCE
#include "pthread_parker.h"
*/
import "C"

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
)

// pthreadParker is parking_lot_core's unix.rs: should_park + a pthread mutex
// and condvar, here all in one malloc'd C struct. Each Park, each timed-wait
// turn, UnparkLock, Unpark and TimedOut is one cgo call; the whole
// lock/loop/unlock runs in C.
//
// Missed-wakeup argument: should_park is only read and cleared under the
// mutex (PreparePark, which sets it before the thread is queued, is the
// exception upstream makes too; it is an atomic store, ordered before the
// caller's later loads: see PreparePark). The owner
// checks should_park and calls pthread_cond_wait without releasing the
// mutex in between, and the waker clears it and signals while holding the
// mutex, so the signal cannot fall between the owner's check and its sleep.
//
// Lifetime: upstream signals before unlocking because the target thread may
// exit (destroying its thread-local parker) as soon as the mutex is free,
// and a signal after the unlock would touch a destroyed condvar. In Go the
// handle keeps the parker reachable, so the C memory cannot be freed under
// the waker; the order is kept because it is upstream's (and it is what
// gets measured: the target cannot run until the waker unlocks).
type pthreadParker struct {
	c       *C.pb_parker
	mode    pthreadMode
	native  waitKind // this OS's wait for modeNative
	rel     waitKind // this OS's wait for modeRelative
	clocks  *pthreadClocks
	cleanup runtime.Cleanup

	blocked, immediate uint64 // owner-only; see WaitCounts
}

type pthreadUnpark pthreadParker

// realPthreadClocks are the clocks of the real parkers (mono.go, and
// gettimeofday in pthread_clock.go).
var realPthreadClocks = pthreadClocks{monoNow: monoNow, wallNow: gettimeofday}

var (
	pthreadNativeKind   = waitKind(C.pb_native_kind())
	pthreadRelativeKind = waitKind(C.pb_relative_kind())
)

func newPthreadMode(mode pthreadMode) *pthreadParker {
	p := &pthreadParker{mode: mode, native: pthreadNativeKind, rel: pthreadRelativeKind, clocks: &realPthreadClocks}
	// The condvar's clock must be the clock of the deadlines it is given.
	kind := planTimedWait(mode, p.native, p.rel, &pthreadClocks{
		monoNow: func() time.Duration { return 0 },
		wallNow: func() time.Time { return time.Unix(0, 0) },
	}, 1).kind
	mono := C.int(0)
	if kind == waitAbsMono {
		mono = 1
	}
	p.c = C.pb_new(mono)
	if p.c == nil {
		panic("parkers: pthread: out of C memory")
	}
	// Free the C half when the Go half is unreachable. The cleanup gets
	// the C pointer, not p, so it does not keep p alive.
	p.cleanup = runtime.AddCleanup(p, func(c *C.pb_parker) { C.pb_free(c) }, p.c)
	return p
}

// Close frees the C memory now instead of at garbage collection. The
// parker must not be used afterwards, and nobody may hold its handle.
func (p *pthreadParker) Close() {
	if p.c != nil {
		p.cleanup.Stop()
		C.pb_free(p.c)
		p.c = nil
	}
}

// PreparePark sets should_park from Go without the mutex, as upstream does
// (unix.rs prepare_park: the thread is not queued yet, so in the lot no
// waker can see it, and the queue lock taken next publishes the store).
func (p *pthreadParker) PreparePark() {
	// Missed-wakeup argument for the callers without a queue lock, which
	// arm and then look at a flag before parking (the latency ping-pong,
	// internal/pingpong/mech.go: "PreparePark; if flag == 0
	// { Park }"; the waker stores the flag, then UnparkLock clears
	// should_park under the mutex). This store must be ordered before
	// that later flag load. A plain store is not: x86-TSO lets a store
	// wait in the store buffer while a later load runs (store->load, the
	// one reordering it allows; arm64 allows more). Then the waiter reads
	// flag 0, the waker stores the flag and clears should_park, and only
	// then does this 1 land, on top of the 0: the waiter sleeps with
	// should_park 1 and nobody left to wake it (what a plain store here did:
	// both ping-pong threads in pthread_cond_wait, should_park 1 on both,
	// TestPingPongNoLostWakeup in pingpong_test.go). A Go atomic
	// store is sequentially consistent (XCHG on amd64, STLR before the
	// LDAR of the flag load on arm64): if the flag load sees 0, the
	// waker's flag store, and so its clear, come after this store, and
	// pb_park sees should_park 0 under the mutex. pb_unpark's store is
	// atomic too, as the two may run at the same time.
	atomic.StoreInt32((*int32)(unsafe.Pointer(&p.c.should_park)), 1)
}

func (p *pthreadParker) TimedOut() bool {
	r := C.pb_timed_out(p.c) != 0
	runtime.KeepAlive(p)
	return r
}

func (p *pthreadParker) Park() {
	chaos.Point("pthread.park.before-lock")
	if C.pb_park(p.c) == 0 {
		p.immediate++
	} else {
		p.blocked++
	}
	// KeepAlive: p must stay reachable until C is done with p.c, or the
	// cleanup could free the C struct under the call.
	runtime.KeepAlive(p)
}

func (p *pthreadParker) ParkUntil(deadline time.Time) bool {
	defer runtime.KeepAlive(p)
	waited := false
	for {
		w := planTimedWait(p.mode, p.native, p.rel, p.clocks, time.Until(deadline))
		chaos.Point("pthread.park-until.before-wait")
		r := C.pb_timedwait(p.c, C.int(w.kind), C.longlong(w.ns/1e9), C.long(w.ns%1e9))
		waited = waited || r&2 != 0
		if r&1 != 0 {
			p.count(waited)
			return true
		}
		if w.kind == waitCheck {
			// upstream: the monotonic clock says the deadline passed and
			// should_park is still set (checked under the mutex).
			chaos.Point("pthread.park-until.timed-out")
			p.count(waited)
			return false
		}
		// Timed out on the condvar's clock, or a spurious wake: the next
		// turn re-checks the monotonic clock (a wall clock stepped forward
		// makes the wait return early; this keeps the park from ending
		// early).
	}
}

func (p *pthreadParker) count(waited bool) {
	if waited {
		p.blocked++
	} else {
		p.immediate++
	}
}

// UnparkLock locks the target's mutex under the queue lock. The mutex is
// unlocked by Unpark, and a pthread mutex must be unlocked by the thread
// that locked it; LockOSThread (it nests, and costs nothing when the caller
// is already locked, as every parkbench participant is) keeps this goroutine
// on this thread until Unpark.
func (p *pthreadParker) UnparkLock() UnparkHandle {
	runtime.LockOSThread()
	C.pb_unpark_lock(p.c)
	return (*pthreadUnpark)(p)
}

func (h *pthreadUnpark) Unpark() {
	chaos.Point("pthread.unpark.before-signal")
	C.pb_unpark(h.c)
	runtime.KeepAlive(h)
	runtime.UnlockOSThread()
}

// WaitCounts implements WaitCounter: per Park/ParkUntil call, whether it made
// at least one condvar wait (blocked) or found itself unparked (immediate).
func (p *pthreadParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }

func cSchedYield() { C.pb_sched_yield() }

func init() {
	setCgoYield(cSchedYield)
	if !monoSet {
		calibrateMono(func() time.Duration {
			var sec C.longlong
			var nsec C.long
			C.pb_clock_monotonic(&sec, &nsec)
			return time.Duration(sec)*time.Second + time.Duration(nsec)
		})
	}
	provide(NamePthread, nil, func() ThreadParker { return newPthreadMode(modeNative) }, nil)
	provide(NamePthreadWallclock, nil, func() ThreadParker { return newPthreadMode(modeWallclock) }, nil)
	provide(NamePthreadRelative, nil, func() ThreadParker { return newPthreadMode(modeRelative) }, nil)
}
