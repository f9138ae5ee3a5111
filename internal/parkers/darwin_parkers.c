//go:build darwin && cgo

// The darwin C of the parkers; the contract is in darwin_parkers.h.

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "darwin_parkers.h"

#define PB_DISPATCH_TIME_NOW ((pb_dispatch_time_t)0)
#define PB_DISPATCH_TIME_FOREVER (~(pb_dispatch_time_t)0)

long pb_sema_wait(pb_dispatch_semaphore_t s, int64_t timeout_ns) {
	pb_dispatch_time_t t = PB_DISPATCH_TIME_FOREVER;
	if (timeout_ns >= 0) t = dispatch_time(PB_DISPATCH_TIME_NOW, timeout_ns);
	return dispatch_semaphore_wait(s, t);
}

// Apple ships no header for these; libc++ (src/atomic.cpp) and others
// declare them themselves, as here.
extern int __ulock_wait(uint32_t operation, void *addr, uint64_t value, uint32_t timeout_us);
extern int __ulock_wake(uint32_t operation, void *addr, uint64_t wake_value);
#define PB_UL_COMPARE_AND_WAIT 1          // process-private 32-bit compare-and-wait
#define PB_ULF_NO_ERRNO 0x01000000        // return -errno instead of setting errno

int pb_ulock_wait(int32_t *addr, int32_t expect, uint32_t timeout_us) {
	return __ulock_wait(PB_UL_COMPARE_AND_WAIT | PB_ULF_NO_ERRNO, addr, (uint64_t)(uint32_t)expect, timeout_us);
}

int pb_ulock_wake(int32_t *addr) {
	return __ulock_wake(PB_UL_COMPARE_AND_WAIT | PB_ULF_NO_ERRNO, addr, 0);
}

// Signatures of <os/os_sync_wait_on_address.h>; the flag and clock enums
// are uint32_t there.
typedef int (*pb_os_wait_fn)(void *addr, uint64_t value, size_t size, uint32_t flags);
typedef int (*pb_os_wait_timeout_fn)(void *addr, uint64_t value, size_t size, uint32_t flags, uint32_t clockid, uint64_t timeout_ns);
typedef int (*pb_os_wake_fn)(void *addr, size_t size, uint32_t flags);
#define PB_OS_CLOCK_MACH_ABSOLUTE_TIME 32

static pb_os_wait_fn pb_os_wait;
static pb_os_wait_timeout_fn pb_os_wait_timeout;
static pb_os_wake_fn pb_os_wake;

int pb_os_sync_resolve(void) {
	pb_os_wait = (pb_os_wait_fn)dlsym(RTLD_DEFAULT, "os_sync_wait_on_address");
	pb_os_wait_timeout = (pb_os_wait_timeout_fn)dlsym(RTLD_DEFAULT, "os_sync_wait_on_address_with_timeout");
	pb_os_wake = (pb_os_wake_fn)dlsym(RTLD_DEFAULT, "os_sync_wake_by_address_any");
	return pb_os_wait != NULL && pb_os_wait_timeout != NULL && pb_os_wake != NULL;
}

int pb_os_sync_wait(int32_t *addr, int32_t expect, uint64_t timeout_ns) {
	int r;
	if (timeout_ns == 0)
		r = pb_os_wait(addr, (uint64_t)(uint32_t)expect, 4, 0);
	else
		r = pb_os_wait_timeout(addr, (uint64_t)(uint32_t)expect, 4, 0, PB_OS_CLOCK_MACH_ABSOLUTE_TIME, timeout_ns);
	return r < 0 ? -errno : r;
}

int pb_os_sync_wake(int32_t *addr) {
	return pb_os_wake(addr, 4, 0) < 0 ? -errno : 0;
}

pthread_mutex_t *pb_cb_mutex_new(void) {
	pthread_mutex_t *m = malloc(sizeof *m);
	pthread_mutexattr_t a;
	if (m == NULL) return NULL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return m;
}

void pb_cb_mutex_free(pthread_mutex_t *m) { pthread_mutex_destroy(m); free(m); }

pthread_cond_t *pb_cb_cond_new(void) {
	pthread_cond_t *c = malloc(sizeof *c);
	if (c != NULL) pthread_cond_init(c, NULL);
	return c;
}

void pb_cb_cond_free(pthread_cond_t *c) { pthread_cond_destroy(c); free(c); }

int pb_cb_cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t rel_ns) {
	struct timespec ts;
	if (rel_ns < 0) return pthread_cond_wait(c, m);
	ts.tv_sec = (time_t)(rel_ns / 1000000000);
	ts.tv_nsec = (long)(rel_ns % 1000000000);
	return pthread_cond_timedwait_relative_np(c, m, &ts);
}
