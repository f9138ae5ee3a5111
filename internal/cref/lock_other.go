//go:build !linux || !cgo

package cref

// LockAvailable says why the C lock benchmark and the cgo pthread mutex do
// not run in this build.
func LockAvailable() error { return why() }

// LockRun is unavailable in this build.
func LockRun(cfg LockRunConfig) (LockRunResult, error) { return LockRunResult{}, why() }

// LockWorkNs is unavailable in this build (-1).
func LockWorkNs(iters int) float64 { return -1 }

// LockUncontendedNs is unavailable in this build (-1).
func LockUncontendedNs(mode LockMode, iters int) float64 { return -1 }

// CgoCallNs is unavailable in this build (-1).
func CgoCallNs(iters int) float64 { return -1 }

// PthreadMutex is unavailable in this build.
type PthreadMutex struct{}

// NewPthreadMutex fails: see LockAvailable.
func NewPthreadMutex() (*PthreadMutex, error) { return nil, why() }

// Lock is never reached (NewPthreadMutex fails).
func (m *PthreadMutex) Lock() {}

// Unlock is never reached.
func (m *PthreadMutex) Unlock() {}

// Free does nothing.
func (m *PthreadMutex) Free() {}

// RwRun is unavailable in this build.
func RwRun(cfg RwRunConfig) (RwRunResult, error) { return RwRunResult{}, why() }

// PthreadRwLock is unavailable in this build.
type PthreadRwLock struct{}

// NewPthreadRwLock fails: see LockAvailable.
func NewPthreadRwLock() (*PthreadRwLock, error) { return nil, why() }

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
