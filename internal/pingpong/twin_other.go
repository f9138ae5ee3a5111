//go:build !linux

package pingpong

import (
	"errors"
	"runtime"
)

// TwinsAvailable is why the Go twins of the C reference do not run here.
func TwinsAvailable() error {
	return errors.New("the Go twins of the C reference use raw futex: Linux only (this is " + runtime.GOOS + ")")
}

// On other systems the twins are never built into a run (unavailable);
// these only satisfy the compiler.
func (m *twin) wait(int) bool { return true }
func (m *twin) wake(int)      {}
