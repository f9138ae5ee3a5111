//go:build !linux

package latency

import (
	"errors"
	"runtime"
)

func twinAvailable() error {
	return errors.New("the Go twins of the C reference use raw futex: Linux only (this is " + runtime.GOOS + ")")
}

// On other systems the twins are never built into a run (unavailable);
// these only satisfy the compiler.
type twinFutex struct{ pp *pingpong }

func (m *twinFutex) setup(int)         {}
func (m *twinFutex) wait(int) bool     { return true }
func (m *twinFutex) wake(int)          {}
func (m *twinFutex) immediate() uint64 { return 0 }

type twinSpin = twinFutex
