//go:build !(linux || darwin) || !cgo

package cref

import (
	"context"
	"errors"
	"runtime"
	"time"
	"unsafe"
)

func why() error {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		return errors.New("the C reference runs on Linux (futex) and darwin (ulock) only; this is " + runtime.GOOS)
	}
	return errors.New("the C reference needs cgo (CGO_ENABLED=1 and a C compiler)")
}

// Available says why the C reference does not run in this build.
func Available() error { return why() }

// Pair is not available in this build.
type Pair struct{}

// Open fails: see Available.
func Open(mode Mode, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	return nil, why()
}

// Round is never reached (Open fails).
func (pr *Pair) Round(n int) Result { return Result{} }

// RoundContext is never reached (Open fails).
func (pr *Pair) RoundContext(ctx context.Context, n int) (Result, error) { return Result{}, why() }

// Tids is never reached (Open fails).
func (pr *Pair) Tids() [2]int { return [2]int{-1, -1} }

// EnableEnds is never reached (Open fails).
func (pr *Pair) EnableEnds() error { return why() }

// Close does nothing.
func (pr *Pair) Close() {}

// Selfwake does nothing here (Available reports why).
func Selfwake(mode Mode, pairs int, out []int64) int { return 0 }

// OpenPlugin is unavailable in this build.
func OpenPlugin(plugin unsafe.Pointer, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	return nil, why()
}

// SelfwakePlugin measures nothing in this build.
func SelfwakePlugin(plugin unsafe.Pointer, pairs int, out []int64) int { return -1 }

// OpenPluginOwn is unavailable in this build.
func OpenPluginOwn(plugin unsafe.Pointer, cpus [2]int, capacity int, gap time.Duration, sampleCPU bool) (*Pair, error) {
	return nil, why()
}

// SelfwakeOwn measures nothing in this build.
func SelfwakeOwn(plugin unsafe.Pointer, pairs int, out []int64) error { return why() }
