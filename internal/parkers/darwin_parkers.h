// The darwin calls behind std, crossbeam, ulock and os-sync (darwin_cgo.go
// is the Go side, darwin_parkers.c the C): libdispatch's semaphore, the
// private __ulock_wait/__ulock_wake, os_sync_wait_on_address (resolved at
// run time), and crossbeam's pthread mutex and condvar as Rust std has them
// on Apple. Compiled for darwin with zig; never executed.
#ifndef PB_DARWIN_PARKERS_H
#define PB_DARWIN_PARKERS_H

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

// ---- libdispatch, declared as Rust std's darwin.rs:26-33 does (libSystem
// re-exports it; no header, so the C sees plain pointers as Rust does).
typedef void *pb_dispatch_semaphore_t;
typedef uint64_t pb_dispatch_time_t;
extern pb_dispatch_time_t dispatch_time(pb_dispatch_time_t when, int64_t delta);
extern pb_dispatch_semaphore_t dispatch_semaphore_create(long value);
extern long dispatch_semaphore_wait(pb_dispatch_semaphore_t dsema, pb_dispatch_time_t timeout);
extern long dispatch_semaphore_signal(pb_dispatch_semaphore_t dsema);
extern void dispatch_release(void *object);

// pb_sema_wait: timeout_ns < 0 is DISPATCH_TIME_FOREVER. Returns 0 if the
// count was decremented, non-zero on timeout (dispatch_semaphore_wait's
// contract).
long pb_sema_wait(pb_dispatch_semaphore_t s, int64_t timeout_ns);

// ---- __ulock_wait / __ulock_wake (private, libsystem_kernel, macOS
// 10.12+; darwin_parkers.c declares them).
// pb_ulock_wait: timeout_us 0 waits forever (the kernel's convention).
// Returns >= 0 or -errno (-ETIMEDOUT, -EINTR, -EFAULT).
int pb_ulock_wait(int32_t *addr, int32_t expect, uint32_t timeout_us);
// pb_ulock_wake returns 0, or -ENOENT when nobody waited.
int pb_ulock_wake(int32_t *addr);

// ---- os_sync_wait_on_address (macOS 14.4+), resolved at run time so that
// an older macOS reports the backend unavailable instead of failing to load
// the binary.
// pb_os_sync_resolve returns 1 if all three symbols are present. Called
// once, from init.
int pb_os_sync_resolve(void);
// pb_os_sync_wait: timeout_ns 0 waits forever. Returns >= 0 or -errno.
int pb_os_sync_wait(int32_t *addr, int32_t expect, uint64_t timeout_ns);
// pb_os_sync_wake returns 0, or -ENOENT when nobody waited.
int pb_os_sync_wake(int32_t *addr);

// ---- crossbeam's std::sync::Mutex and Condvar as std has them on Apple:
// a pthread mutex of type PTHREAD_MUTEX_NORMAL (std sys/pal/unix/sync/
// mutex.rs init) and a default condvar whose timed wait is
// pthread_cond_timedwait_relative_np (std sys/pal/unix/sync/condvar.rs,
// the target_vendor = "apple" wait_timeout). malloc'd: they must not move.
pthread_mutex_t *pb_cb_mutex_new(void);
void pb_cb_mutex_free(pthread_mutex_t *m);
pthread_cond_t *pb_cb_cond_new(void);
void pb_cb_cond_free(pthread_cond_t *c);
// pb_cb_cond_wait: rel_ns < 0 is pthread_cond_wait.
int pb_cb_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t rel_ns);

#endif
