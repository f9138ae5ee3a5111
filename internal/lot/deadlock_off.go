//go:build !lotdeadlock

package lot

import "unsafe"

// DeadlockDetection reports whether the deadlock detector is built in
// (build tag lotdeadlock).
const DeadlockDetection = false

// Without the lotdeadlock tag the detector's hooks are empty and inlined
// away: no field in threadData (deadlockTD is empty and not the last
// field), no call, no allocation. TestDeadlockHooksFree and
// BenchmarkDeadlockHooks show it.

type deadlockTD struct{}

func deadlockAcquire(unsafe.Pointer)  {}
func deadlockRelease(unsafe.Pointer)  {}
func deadlockOnPark(*threadData)      {}
func deadlockOnUnpark(td *threadData) {}
func deadlockAcquireRw(*RwLock)       {}
func deadlockReleaseRw(*RwLock)       {}
