//go:build linux && cgo

package cref

/*
#include <stdlib.h>
#include "wake.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// WakeAvailable returns nil: the C waiters run here.
func WakeAvailable() error { return nil }

// WakeSet is N C waiter threads, blocked or about to block. Only one
// goroutine may use it.
type WakeSet struct {
	s *C.pbw_set
	n int
}

// StartWake creates n C waiter threads of kind, waiter i pinned to cpus[i]
// (-1 or a nil cpus: unpinned).
func StartWake(kind WakeKind, n int, cpus []int) (*WakeSet, error) {
	var cp *C.int
	if cpus != nil {
		buf := unsafe.Slice((*C.int)(C.malloc(C.size_t(n)*C.size_t(unsafe.Sizeof(C.int(0))))), n)
		defer C.free(unsafe.Pointer(&buf[0]))
		for i := range buf {
			buf[i] = C.int(cpus[i])
		}
		cp = &buf[0]
	}
	var cerr C.int
	s := C.pbw_start(C.int(kind), C.int(n), cp, &cerr)
	if s == nil {
		return nil, fmt.Errorf("cref: starting %d C waiter threads: %w", n, syscall.Errno(cerr))
	}
	return &WakeSet{s: s, n: n}, nil
}

// Counted is how many waiters counted themselves in, right before their wait.
func (w *WakeSet) Counted() int { return int(C.pbw_counted(w.s)) }

// Tid is waiter i's kernel thread id (0 until it runs).
func (w *WakeSet) Tid(i int) int { return int(C.pbw_tid(w.s, C.int(i))) }

// PinError is the first waiter's failed pthread_attr_setaffinity_np, or nil.
func (w *WakeSet) PinError() error {
	for i := 0; i < w.n; i++ {
		if e := C.pbw_pin_error(w.s, C.int(i)); e != 0 {
			return fmt.Errorf("cref: pinning C waiter %d: %w", i, syscall.Errno(e))
		}
	}
	return nil
}

// Fire sleeps settle (0: not at all), then runs the timed wake on the
// calling thread (one cgo call: nothing of the Go runtime runs between the
// end of the sleep and the last clock read), k wakes or requeues per call,
// at most bound long. perCall gets each call's duration (as many as fit).
func (w *WakeSet) Fire(op WakeOp, k int, perCall []int64, bound, settle time.Duration) WakeResult {
	var res C.pbw_result
	var pc *C.int64_t
	if len(perCall) > 0 {
		pc = (*C.int64_t)(unsafe.Pointer(&perCall[0]))
	}
	C.pbw_fire(w.s, C.int(op), C.int(k), pc, C.long(len(perCall)), C.int64_t(bound), C.int64_t(settle), &res)
	return WakeResult{TotalNs: int64(res.total_ns), Calls: int(res.calls), Done: int(res.done), TimedOut: res.timed_out != 0}
}

// Join waits up to timeout for every waiter to leave its wait and exit. It
// reports false on a timeout (a lost wakeup: the waiters are then released
// by force and joined).
func (w *WakeSet) Join(timeout time.Duration) bool {
	return C.pbw_join(w.s, C.int64_t(timeout)) == 0
}

// Close releases any waiter still waiting, joins them all and frees the set.
func (w *WakeSet) Close() {
	if w.s != nil {
		C.pbw_free(w.s)
		w.s = nil
	}
}

// ProducerConsumer runs one round of the C producer/consumer (two C
// threads, unpinned): items through a queue of capacity cap, one
// pthread_cond_signal per item on each side, with the mutex held
// (lockHeld) or right after unlocking; bound caps the round.
func ProducerConsumer(items, capacity int, lockHeld bool, bound time.Duration) (PCResult, error) {
	var res C.pbw_pc_result
	held := C.int(0)
	if lockHeld {
		held = 1
	}
	C.pbw_pc(C.long(items), C.int(capacity), held, C.int64_t(bound), &res)
	out := PCResult{ElapsedNs: int64(res.elapsed_ns), Switches: int64(res.switches), Waits: int64(res.waits)}
	switch e := syscall.Errno(res.err); e {
	case 0:
		return out, nil
	case syscall.ETIMEDOUT:
		return out, fmt.Errorf("cref: producer/consumer: no progress within %v (a lost wakeup)", bound)
	case syscall.EPROTO:
		return out, errors.New("cref: producer/consumer: an item came out of order")
	default:
		return out, fmt.Errorf("cref: producer/consumer: %w", e)
	}
}
