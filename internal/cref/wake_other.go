//go:build !linux || !cgo

package cref

import (
	"errors"
	"runtime"
	"time"
)

func wakeWhy() error {
	if runtime.GOOS != "linux" {
		return errors.New("the C waiters of parkbench wake are Linux-only (futex, pthread_attr_setaffinity_np, waiters seen asleep in /proc/self/task); this is " + runtime.GOOS)
	}
	return errors.New("the C waiters of parkbench wake need cgo (CGO_ENABLED=1 and a C compiler)")
}

// WakeAvailable says why the C waiters do not run in this build.
func WakeAvailable() error { return wakeWhy() }

// WakeSet is unavailable in this build.
type WakeSet struct{}

// StartWake fails: see WakeAvailable.
func StartWake(kind WakeKind, n int, cpus []int) (*WakeSet, error) { return nil, wakeWhy() }

func (w *WakeSet) Counted() int    { return 0 }
func (w *WakeSet) Tid(i int) int   { return 0 }
func (w *WakeSet) PinError() error { return nil }
func (w *WakeSet) Fire(op WakeOp, k int, perCall []int64, bound, settle time.Duration) WakeResult {
	return WakeResult{TimedOut: true}
}
func (w *WakeSet) Join(timeout time.Duration) bool { return true }
func (w *WakeSet) Close()                          {}

// ProducerConsumer fails: see WakeAvailable.
func ProducerConsumer(items, capacity int, lockHeld bool, bound time.Duration) (PCResult, error) {
	return PCResult{}, wakeWhy()
}
