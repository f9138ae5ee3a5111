//go:build !linux || !cgo

package cref

import (
	"errors"
	"runtime"
	"time"
)

func spinWhy() error {
	if runtime.GOOS != "linux" {
		return errors.New("the C waiter and waker of parkbench spin are Linux-only (futex, pthread_setaffinity_np, RUSAGE_THREAD); this is " + runtime.GOOS)
	}
	return errors.New("the C waiter and waker of parkbench spin need cgo (CGO_ENABLED=1 and a C compiler)")
}

// SpinAvailable says why the C rows do not run in this build.
func SpinAvailable() error { return spinWhy() }

// SpinRun is unavailable in this build.
type SpinRun struct{}

// StartSpin fails: see SpinAvailable.
func StartSpin(cfg SpinConfig) (*SpinRun, error) { return nil, spinWhy() }

func (s *SpinRun) Progress() int64                 { return 0 }
func (s *SpinRun) Signalled() int64                { return 0 }
func (s *SpinRun) Join(timeout time.Duration) bool { return true }
func (s *SpinRun) Abort()                          {}
func (s *SpinRun) PinError() error                 { return nil }
func (s *SpinRun) Samples() []SpinSample           { return nil }
func (s *SpinRun) Spins() int                      { return -1 }
func (s *SpinRun) Free()                           {}

// SpinCalibrate fails: see SpinAvailable.
func SpinCalibrate(waiterCPU, wakerCPU, warmup, n int, timeout time.Duration) ([]int64, int, error) {
	return nil, -1, spinWhy()
}
