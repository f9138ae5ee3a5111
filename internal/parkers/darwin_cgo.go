//go:build darwin && cgo

package parkers

// The darwin calls behind std, crossbeam, ulock and os-sync: all of this
// package's darwin cgo is in this file (pthread's is in pthread_cgo.go). The
// logic above the calls is OS-independent and runs on Linux too:
// std_sema.go (std's state machine), crossbeam.go (crossbeam's), addrwait.go
// (ulock's and os-sync's). Compiled for darwin with zig; never executed.

/*
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

// ---- libdispatch, declared as Rust std's darwin.rs:26-33 does (libSystem
// re-exports it; no header, so the C sees plain pointers as Rust does).
typedef void *pb_dispatch_semaphore_t;
typedef uint64_t pb_dispatch_time_t;
extern pb_dispatch_time_t dispatch_time(pb_dispatch_time_t when, int64_t delta);
extern pb_dispatch_semaphore_t dispatch_semaphore_create(long value);
extern long dispatch_semaphore_wait(pb_dispatch_semaphore_t dsema, pb_dispatch_time_t timeout);
extern long dispatch_semaphore_signal(pb_dispatch_semaphore_t dsema);
extern void dispatch_release(void *object);
#define PB_DISPATCH_TIME_NOW ((pb_dispatch_time_t)0)
#define PB_DISPATCH_TIME_FOREVER (~(pb_dispatch_time_t)0)

// timeout_ns < 0: DISPATCH_TIME_FOREVER. Returns 0 if the count was
// decremented, non-zero on timeout (dispatch_semaphore_wait's contract).
static long pb_sema_wait(pb_dispatch_semaphore_t s, int64_t timeout_ns) {
	pb_dispatch_time_t t = PB_DISPATCH_TIME_FOREVER;
	if (timeout_ns >= 0) t = dispatch_time(PB_DISPATCH_TIME_NOW, timeout_ns);
	return dispatch_semaphore_wait(s, t);
}

// ---- __ulock_wait / __ulock_wake: private, exported by libSystem
// (libsystem_kernel) since macOS 10.12. Apple ships no header; libc++
// (src/atomic.cpp) and others declare them themselves, as here.
extern int __ulock_wait(uint32_t operation, void *addr, uint64_t value, uint32_t timeout_us);
extern int __ulock_wake(uint32_t operation, void *addr, uint64_t wake_value);
#define PB_UL_COMPARE_AND_WAIT 1          // process-private 32-bit compare-and-wait
#define PB_ULF_NO_ERRNO 0x01000000        // return -errno instead of setting errno

// timeout_us 0 waits forever (the kernel's convention). Returns >= 0 or
// -errno (-ETIMEDOUT, -EINTR, -EFAULT).
static int pb_ulock_wait(int32_t *addr, int32_t expect, uint32_t timeout_us) {
	return __ulock_wait(PB_UL_COMPARE_AND_WAIT | PB_ULF_NO_ERRNO, addr, (uint64_t)(uint32_t)expect, timeout_us);
}
// Returns 0, or -ENOENT when nobody waited.
static int pb_ulock_wake(int32_t *addr) {
	return __ulock_wake(PB_UL_COMPARE_AND_WAIT | PB_ULF_NO_ERRNO, addr, 0);
}

// ---- os_sync_wait_on_address (macOS 14.4+), resolved at run time so that
// an older macOS reports the backend unavailable instead of failing to load
// the binary. Signatures of <os/os_sync_wait_on_address.h>; the flag and
// clock enums are uint32_t there.
typedef int (*pb_os_wait_fn)(void *addr, uint64_t value, size_t size, uint32_t flags);
typedef int (*pb_os_wait_timeout_fn)(void *addr, uint64_t value, size_t size, uint32_t flags, uint32_t clockid, uint64_t timeout_ns);
typedef int (*pb_os_wake_fn)(void *addr, size_t size, uint32_t flags);
#define PB_OS_CLOCK_MACH_ABSOLUTE_TIME 32

static pb_os_wait_fn pb_os_wait;
static pb_os_wait_timeout_fn pb_os_wait_timeout;
static pb_os_wake_fn pb_os_wake;

// Returns 1 if all three symbols are present. Called once, from init.
static int pb_os_sync_resolve(void) {
	pb_os_wait = (pb_os_wait_fn)dlsym(RTLD_DEFAULT, "os_sync_wait_on_address");
	pb_os_wait_timeout = (pb_os_wait_timeout_fn)dlsym(RTLD_DEFAULT, "os_sync_wait_on_address_with_timeout");
	pb_os_wake = (pb_os_wake_fn)dlsym(RTLD_DEFAULT, "os_sync_wake_by_address_any");
	return pb_os_wait != NULL && pb_os_wait_timeout != NULL && pb_os_wake != NULL;
}

// timeout_ns 0 waits forever. Returns >= 0 or -errno.
static int pb_os_sync_wait(int32_t *addr, int32_t expect, uint64_t timeout_ns) {
	int r;
	if (timeout_ns == 0)
		r = pb_os_wait(addr, (uint64_t)(uint32_t)expect, 4, 0);
	else
		r = pb_os_wait_timeout(addr, (uint64_t)(uint32_t)expect, 4, 0, PB_OS_CLOCK_MACH_ABSOLUTE_TIME, timeout_ns);
	return r < 0 ? -errno : r;
}
// Returns 0, or -ENOENT when nobody waited.
static int pb_os_sync_wake(int32_t *addr) {
	return pb_os_wake(addr, 4, 0) < 0 ? -errno : 0;
}

// ---- crossbeam's std::sync::Mutex and Condvar as std has them on Apple:
// a pthread mutex of type PTHREAD_MUTEX_NORMAL (std sys/pal/unix/sync/
// mutex.rs init) and a default condvar whose timed wait is
// pthread_cond_timedwait_relative_np (std sys/pal/unix/sync/condvar.rs,
// the target_vendor = "apple" wait_timeout). malloc'd: they must not move.
static pthread_mutex_t *pb_cb_mutex_new(void) {
	pthread_mutex_t *m = malloc(sizeof *m);
	pthread_mutexattr_t a;
	if (m == NULL) return NULL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return m;
}
static void pb_cb_mutex_free(pthread_mutex_t *m) { pthread_mutex_destroy(m); free(m); }
static pthread_cond_t *pb_cb_cond_new(void) {
	pthread_cond_t *c = malloc(sizeof *c);
	if (c != NULL) pthread_cond_init(c, NULL);
	return c;
}
static void pb_cb_cond_free(pthread_cond_t *c) { pthread_cond_destroy(c); free(c); }
// rel_ns < 0: pthread_cond_wait.
static int pb_cb_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t rel_ns) {
	struct timespec ts;
	if (rel_ns < 0) return pthread_cond_wait(c, m);
	ts.tv_sec = (time_t)(rel_ns / 1000000000);
	ts.tv_nsec = (long)(rel_ns % 1000000000);
	return pthread_cond_timedwait_relative_np(c, m, &ts);
}
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

// ---- crossbeam's mutex and condvar (see the C above).

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
