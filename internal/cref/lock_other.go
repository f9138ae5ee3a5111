//go:build !linux || !cgo

package cref

import (
	"errors"
	"runtime"
	"unsafe"
)

// lockWhy says why the lock floor is missing: it is Linux-only (the C
// loop pins with pthread_setaffinity_np and reads RUSAGE_THREAD), and
// needs cgo.
func lockWhy() error {
	if runtime.GOOS != "linux" {
		return errors.New("the C lock floor and the cgo pthread locks are Linux-only here; this is " + runtime.GOOS)
	}
	return errors.New("the C lock floor and the cgo pthread locks need cgo (CGO_ENABLED=1 and a C compiler)")
}

// LockAvailable says why the C lock benchmark and the cgo pthread mutex do
// not run in this build.
func LockAvailable() error { return lockWhy() }

// LockRun is unavailable in this build.
func LockRun(cfg LockRunConfig) (LockRunResult, error) { return LockRunResult{}, lockWhy() }

// LockWorkNs is unavailable in this build (-1).
func LockWorkNs(iters int) float64 { return -1 }

// LockUncontendedNs is unavailable in this build (-1).
func LockUncontendedNs(mode LockMode, plugin unsafe.Pointer, iters int) float64 { return -1 }

// CgoCallNs is unavailable in this build (-1).
func CgoCallNs(iters int) float64 { return -1 }

// PthreadMutex is unavailable in this build.
type PthreadMutex struct{}

// NewPthreadMutex fails: see LockAvailable.
func NewPthreadMutex() (*PthreadMutex, error) { return nil, lockWhy() }

// NewPthreadPIMutex fails: see LockAvailable.
func NewPthreadPIMutex() (*PthreadMutex, error) { return nil, lockWhy() }

// Lock is never reached (NewPthreadMutex fails).
func (m *PthreadMutex) Lock() {}

// Unlock is never reached.
func (m *PthreadMutex) Unlock() {}

// Free does nothing.
func (m *PthreadMutex) Free() {}

// RwRun is unavailable in this build.
func RwRun(cfg RwRunConfig) (RwRunResult, error) { return RwRunResult{}, lockWhy() }

// PthreadRwLock is unavailable in this build.
type PthreadRwLock struct{}

// NewPthreadRwLock fails: see LockAvailable.
func NewPthreadRwLock() (*PthreadRwLock, error) { return nil, lockWhy() }

// RLock is never reached (NewPthreadRwLock fails).
func (m *PthreadRwLock) RLock() {}

// RUnlock is never reached.
func (m *PthreadRwLock) RUnlock() {}

// Lock is never reached.
func (m *PthreadRwLock) Lock() {}

// Unlock is never reached.
func (m *PthreadRwLock) Unlock() {}

// Free does nothing.
func (m *PthreadRwLock) Free() {}
