//go:build linux && cgo

package cref

// The C herd: E6's pthread variant. N C threads (pthread_create) wait on
// one pthread_cond_t with one pthread_mutex_t; a C notifier thread, once
// told to fire, sets the condition and calls pthread_cond_broadcast (or N x
// pthread_cond_signal) with the mutex held or released. Each waiter stamps
// CLOCK_MONOTONIC right after it holds the mutex, holds it for hold_ns by
// busy-waiting on the same clock, stamps, unlocks. The whole repeat runs in
// C: the Go side only reads the count and the thread ids (to poll
// /proc/self/task/TID/stat until every waiter sleeps), fires, and waits.

/*
#include "herd.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// HerdAvailable returns nil: the C herd runs here.
func HerdAvailable() error { return nil }

// StartHerd creates cfg.N waiting C threads and the C notifier. The waiters
// lock the mutex, count themselves in, read their RUSAGE_THREAD and wait;
// the notifier waits for Fire. Call Wait, then Close.
func StartHerd(cfg HerdConfig) (*Herd, error) {
	if cfg.N < 1 {
		return nil, fmt.Errorf("cref: herd needs at least one waiter")
	}
	var cpus *C.int
	if cfg.WaiterCPUs != nil {
		if len(cfg.WaiterCPUs) != cfg.N {
			return nil, fmt.Errorf("cref: %d waiter CPUs for %d waiters", len(cfg.WaiterCPUs), cfg.N)
		}
		cs := make([]C.int, cfg.N)
		for i, c := range cfg.WaiterCPUs {
			cs[i] = C.int(c)
		}
		cpus = &cs[0]
		defer runtime.KeepAlive(cs)
	}
	var errno C.int
	h := C.pb_herd_start(C.int(cfg.N), C.int64_t(cfg.HoldNs), cbool(cfg.OneLoop), cbool(cfg.LockHeld),
		C.int(cfg.NotifierCPU), cpus, &errno)
	if h == nil {
		return nil, fmt.Errorf("cref: starting %d C herd threads: %w", cfg.N, syscall.Errno(errno))
	}
	return &Herd{h: h, n: cfg.N}, nil
}

func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Herd is one running repeat of the C herd.
type Herd struct {
	h     *C.pb_herd
	n     int
	fired bool
	done  bool
}

// Counted returns how many waiters have counted themselves in under the
// mutex (each then waits without releasing anything else).
func (r *Herd) Counted() int { return int(C.pb_herd_counted(r.h)) }

// Tid returns waiter i's kernel thread id, 0 until it has started.
func (r *Herd) Tid(i int) int { return int(C.pb_herd_tid(r.h, C.int(i))) }

// Fire lets the notifier go: it sets the condition and notifies. Fire is
// also how a cancelled run releases the waiters.
func (r *Herd) Fire() {
	if !r.fired {
		r.fired = true
		C.pb_herd_fire(r.h)
	}
}

// Wait blocks until the notifier has joined every waiter, at most timeout.
// It reports false on timeout (a lost wakeup): the C threads are then left
// as they are, and Close must not be called.
func (r *Herd) Wait(timeout time.Duration) bool {
	if r.done {
		return true
	}
	r.done = C.pb_herd_wait(r.h, C.int64_t(timeout)) == 1
	return r.done
}

// Result returns what the repeat measured; valid after Wait returned true.
func (r *Herd) Result() HerdResult {
	h := r.h
	res := HerdResult{
		T0Ns:         int64(h.t0),
		NotifierCPU:  int(h.notifier_cpu_seen),
		ProcCsw:      int64(h.proc_post - h.proc_pre),
		NotifierCsw:  int64(h.ncsw_post - h.ncsw_pre),
		NotifierPinE: int(h.notifier_pin_err),
		Waiters:      make([]HerdWaiter, r.n),
	}
	slots := unsafe.Slice(C.pb_herd_slots(h), r.n)
	for i := range slots {
		s := &slots[i]
		res.Waiters[i] = HerdWaiter{
			Tid:          int(s.tid),
			AcqNs:        int64(s.acq_ns),
			RelNs:        int64(s.rel_ns),
			CPU:          int(s.cpu),
			Csw:          int64(s.csw_post - s.csw_pre),
			Invol:        int64(s.inv_post - s.inv_pre),
			WaitReturns:  int64(s.wait_returns),
			Acquisitions: int64(s.acquisitions),
			PinErr:       int(s.pin_err),
		}
	}
	return res
}

// Close frees the repeat. Only after Wait returned true (every C thread has
// been joined); after a timeout the memory is deliberately leaked, because
// stuck threads still use it.
func (r *Herd) Close() {
	if r.h != nil && r.done {
		C.pb_herd_free(r.h)
		r.h = nil
	}
}
