//go:build darwin && cgo

package parkers

// The darwin calls behind std, crossbeam, ulock and os-sync: all of this
// package's darwin cgo is in this file and its C in darwin_parkers.c and
// .h (pthread's is in pthread_cgo.go). The logic above the calls is
// OS-independent and runs on Linux too:
// std_sema.go (std's state machine), crossbeam.go (crossbeam's), addrwait.go
// (ulock's and os-sync's). Compiled for darwin with zig; never executed.

/*
#include "darwin_parkers.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"
)

// ---- std: darwin.rs's semaphore.

// dispatchSema is a dispatch_semaphore_t created with 0, released by a
// cleanup when its parker is unreachable (darwin.rs Drop: the count is 0
// then, which dispatch_release requires).
type dispatchSema struct{ s C.pb_dispatch_semaphore_t }

func (d *dispatchSema) wait(timeout time.Duration) bool {
	r := C.pb_sema_wait(d.s, C.int64_t(timeout))
	runtime.KeepAlive(d)
	return r == 0
}

func (d *dispatchSema) signal() {
	C.dispatch_semaphore_signal(d.s)
	runtime.KeepAlive(d)
}

func newStdDarwin() TokenParker {
	s := C.dispatch_semaphore_create(0)
	if s == nil {
		panic("failed to create dispatch semaphore for thread synchronization") // darwin.rs:50-53
	}
	d := &dispatchSema{s: s}
	runtime.AddCleanup(d, func(s C.pb_dispatch_semaphore_t) { C.dispatch_release(unsafe.Pointer(s)) }, s)
	return newStdSema(d)
}

// ---- crossbeam's mutex and condvar (darwin_parkers.h).

const cbPrimitives = "mutex and condvar are pthread's (Rust std's on macOS: PTHREAD_MUTEX_NORMAL, timed wait " +
	"pthread_cond_timedwait_relative_np), in C memory, blocking the OS thread"

// lazyC returns the C object in slot, allocating it on first use:
// crossbeam.go builds cbInner as a zero value, and a pthread mutex or
// condvar cannot be zero-initialised on darwin (PTHREAD_MUTEX_INITIALIZER
// is not all zeros). Concurrent first uses race with a CAS; the loser frees
// its allocation. A cleanup frees the C object once the Go value holding
// slot is unreachable.
func lazyC[T any](slot *atomic.Pointer[T], alloc func() *T, free func(*T)) *T {
	if p := slot.Load(); p != nil {
		return p
	}
	p := alloc()
	if p == nil {
		panic("parkers: crossbeam: out of C memory")
	}
	if !slot.CompareAndSwap(nil, p) {
		free(p)
		return slot.Load()
	}
	runtime.AddCleanup(slot, free, p)
	return p
}

func cbMutexNew() *C.pthread_mutex_t   { return C.pb_cb_mutex_new() }
func cbMutexFree(p *C.pthread_mutex_t) { C.pb_cb_mutex_free(p) }
func cbCondNew() *C.pthread_cond_t     { return C.pb_cb_cond_new() }
func cbCondFree(p *C.pthread_cond_t)   { C.pb_cb_cond_free(p) }

// cbMutex is a PTHREAD_MUTEX_NORMAL pthread mutex in C memory (lazyC).
type cbMutex struct {
	p atomic.Pointer[C.pthread_mutex_t]
}

func (m *cbMutex) get() *C.pthread_mutex_t { return lazyC(&m.p, cbMutexNew, cbMutexFree) }

// Lock pins the goroutine to its thread until Unlock (LockOSThread nests):
// a pthread mutex must be unlocked by the thread that locked it.
func (m *cbMutex) Lock() {
	runtime.LockOSThread()
	C.pthread_mutex_lock(m.get())
	runtime.KeepAlive(m)
}

func (m *cbMutex) Unlock() {
	C.pthread_mutex_unlock(m.p.Load())
	runtime.KeepAlive(m)
	runtime.UnlockOSThread()
}

// cbCond is a default pthread condvar in C memory (lazyC).
type cbCond struct {
	p atomic.Pointer[C.pthread_cond_t]
}

func (c *cbCond) get() *C.pthread_cond_t { return lazyC(&c.p, cbCondNew, cbCondFree) }

// Wait is std's Condvar::wait / wait_timeout with m held: the timed wait
// gets the remaining time, relative, as std's Apple wait_timeout does (Go
// durations stay far below std's u64::MAX ns clamp).
func (c *cbCond) Wait(m *cbMutex, timed bool, deadline time.Time) {
	rel := int64(-1)
	if timed {
		rel = max(int64(time.Until(deadline)), 0)
	}
	C.pb_cb_cond_wait(c.get(), m.p.Load(), C.int64_t(rel))
	runtime.KeepAlive(c)
	runtime.KeepAlive(m)
}

func (c *cbCond) NotifyOne() {
	C.pthread_cond_signal(c.get())
	runtime.KeepAlive(c)
}

// ---- ulock and os-sync: addrWaitAPI implementations.

// ulockAPI: __ulock_wait's timeout is a uint32 of microseconds where 0
// means forever, so a wait is rounded up to at least 1 µs and ParkUntil
// slices longer ones (ulockMaxWait).
type ulockAPI struct{}

const ulockMaxWait = time.Duration(1<<32-1) * time.Microsecond

func (ulockAPI) wait(addr *atomic.Int32, expect int32, timeout time.Duration) {
	us := C.uint32_t(0)
	if timeout > 0 {
		us = C.uint32_t((timeout + time.Microsecond - 1) / time.Microsecond)
	}
	r := C.pb_ulock_wait((*C.int32_t)(unsafe.Pointer(addr)), C.int32_t(expect), us)
	if r < 0 && r != -C.ETIMEDOUT && r != -C.EINTR {
		// EFAULT cannot happen for a live word (the parker holds it).
		panic("parkers: __ulock_wait: errno " + strconv.Itoa(int(-r)))
	}
}

func (ulockAPI) wake(addr *atomic.Int32) {
	r := C.pb_ulock_wake((*C.int32_t)(unsafe.Pointer(addr)))
	if r < 0 && r != -C.ENOENT && r != -C.EINTR {
		panic("parkers: __ulock_wake: errno " + strconv.Itoa(int(-r)))
	}
}

var ulockPoints = newAddrWaitPoints(NameUlock)

func newUlock() ThreadParker { return newAddrWaitParker(ulockAPI{}, ulockPoints, ulockMaxWait) }

// osSyncAPI: os_sync_wait_on_address(_with_timeout): the timeout is relative
// nanoseconds on OS_CLOCK_MACH_ABSOLUTE_TIME, rounded up to at least 1.
type osSyncAPI struct{}

func (osSyncAPI) wait(addr *atomic.Int32, expect int32, timeout time.Duration) {
	ns := C.uint64_t(0)
	if timeout > 0 {
		ns = C.uint64_t(timeout)
	}
	r := C.pb_os_sync_wait((*C.int32_t)(unsafe.Pointer(addr)), C.int32_t(expect), ns)
	if r < 0 && r != -C.ETIMEDOUT && r != -C.EINTR {
		panic("parkers: os_sync_wait_on_address: errno " + strconv.Itoa(int(-r)))
	}
}

func (osSyncAPI) wake(addr *atomic.Int32) {
	r := C.pb_os_sync_wake((*C.int32_t)(unsafe.Pointer(addr)))
	if r < 0 && r != -C.ENOENT {
		panic("parkers: os_sync_wake_by_address_any: errno " + strconv.Itoa(int(-r)))
	}
}

var osSyncPoints = newAddrWaitPoints(NameOSSync)

func newOSSync() ThreadParker { return newAddrWaitParker(osSyncAPI{}, osSyncPoints, 0) }

var errNeedsMacOS144 = errors.New("needs macOS 14.4 (os_sync_wait_on_address, os_sync_wait_on_address_with_timeout and " +
	"os_sync_wake_by_address_any are not in this libSystem)")

func init() {
	provide(NameStd, nil, nil, newStdDarwin)
	provide(NameUlock, nil, newUlock, nil)
	if C.pb_os_sync_resolve() == 0 {
		provide(NameOSSync, func() error { return errNeedsMacOS144 }, nil, nil)
	} else {
		provide(NameOSSync, nil, newOSSync, nil)
	}
}
