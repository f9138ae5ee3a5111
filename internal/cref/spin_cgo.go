//go:build linux && cgo

package cref

/*
#include "spin.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"syscall"
	"time"
	"unsafe"
)

// SpinAvailable returns nil where glibc's adaptive mutex exists.
func SpinAvailable() error {
	if C.pbs_available() == 0 {
		return errors.New("PTHREAD_MUTEX_ADAPTIVE_NP is glibc's; this C library has none")
	}
	return nil
}

// SpinRun is a running pair of C threads (StartSpin). Only one goroutine
// may use it.
type SpinRun struct {
	r *C.pbs_run
	n int
}

// StartSpin starts the waiter and the waker; they run cfg.Warmup + cfg.N
// waits on their own. Poll Progress, then Join; Free after a Join that
// returned true.
func StartSpin(cfg SpinConfig) (*SpinRun, error) {
	var cerr C.int
	sleepy := C.int(0)
	if cfg.Sleepy {
		sleepy = 1
	}
	r := C.pbs_start(C.int(cfg.WaiterCPU), C.int(cfg.WakerCPU), sleepy, C.int64_t(cfg.GapNs), C.long(cfg.Warmup), C.long(cfg.N), &cerr)
	if r == nil {
		return nil, fmt.Errorf("cref: starting the C waiter and waker: %w", syscall.Errno(cerr))
	}
	return &SpinRun{r: r, n: cfg.N}, nil
}

// Progress is the waits that ended so far; Signalled the waits whose
// unlock the waker made.
func (s *SpinRun) Progress() int64  { return int64(C.pbs_progress(s.r)) }
func (s *SpinRun) Signalled() int64 { return int64(C.pbs_signalled(s.r)) }

// Join waits up to timeout for both threads to end; false on a timeout.
func (s *SpinRun) Join(timeout time.Duration) bool {
	return C.pbs_join(s.r, C.int64_t(timeout)) == 0
}

// Abort releases the handshakes; a waiter blocked in the mutex stays.
func (s *SpinRun) Abort() { C.pbs_abort(s.r) }

// PinError is the first failed pthread_setaffinity_np, or nil.
func (s *SpinRun) PinError() error {
	if e := C.pbs_pin_error(s.r); e != 0 {
		return fmt.Errorf("cref: pinning a C thread: %w", syscall.Errno(e))
	}
	return nil
}

// Samples copies the run's samples (after Join).
func (s *SpinRun) Samples() []SpinSample {
	cs := unsafe.Slice(C.pbs_samples(s.r), s.n)
	out := make([]SpinSample, s.n)
	for i, c := range cs {
		out[i] = SpinSample{Lat: int64(c.lat), Late: int64(c.late), CPU: int64(c.cpu), Slept: c.slept != 0, Csw: int32(c.csw)}
	}
	return out
}

// Spins is the mutex's adaptive estimate (__spins) at the end, -1 unknown.
func (s *SpinRun) Spins() int { return int(C.pbs_spins(s.r)) }

// Free frees a joined run.
func (s *SpinRun) Free() {
	if s.r != nil {
		C.pbs_free(s.r)
		s.r = nil
	}
}

// SpinCalibrate times glibc's spin phase alone, warmup + n times (spin.h
// pbs_calibrate): each sample is the waiter's start -> the lock word
// turning 2 (about to sleep), with the waker on another CPU watching; and
// the mutex's __spins at the end.
func SpinCalibrate(waiterCPU, wakerCPU, warmup, n int, timeout time.Duration) (ns []int64, spins int, err error) {
	out := make([]C.int64_t, n)
	var cs C.int
	if e := C.pbs_calibrate(C.int(waiterCPU), C.int(wakerCPU), C.long(warmup), C.long(n), &out[0], &cs, C.int64_t(timeout)); e != 0 {
		return nil, -1, fmt.Errorf("cref: timing glibc's spin phase: %w", syscall.Errno(e))
	}
	ns = make([]int64, n)
	for i, v := range out {
		ns[i] = int64(v)
	}
	return ns, int(cs), nil
}
