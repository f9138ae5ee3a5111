//go:build windows

package parkers

import (
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

const cbPrimitives = "mutex and condvar are SRWLOCK and CONDITION_VARIABLE (Rust std's on Windows), blocking the OS thread"

// Rust std's Windows Mutex is an SRWLOCK and its Condvar a
// CONDITION_VARIABLE (std sys/sync/mutex/windows7.rs and
// sys/sync/condvar/windows7.rs), so crossbeam's Parker there sits on those.
// Both are one pointer-sized word, zero-initialised (SRWLOCK_INIT,
// CONDITION_VARIABLE_INIT), never moved: they live in the heap-allocated
// cbInner. The kernel32 calls go through syscall.SyscallN, so a blocked
// acquire or sleep releases the goroutine's P as any system call does.
var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procAcquireSRWLockExcl    = kernel32.NewProc("AcquireSRWLockExclusive")
	procReleaseSRWLockExcl    = kernel32.NewProc("ReleaseSRWLockExclusive")
	procSleepConditionVarSRW  = kernel32.NewProc("SleepConditionVariableSRW")
	procWakeConditionVariable = kernel32.NewProc("WakeConditionVariable")
)

// cbMutex is an SRWLOCK held exclusively.
type cbMutex struct{ srw uintptr }

func (m *cbMutex) Lock() {
	syscall.SyscallN(procAcquireSRWLockExcl.Addr(), uintptr(unsafe.Pointer(&m.srw)))
}

func (m *cbMutex) Unlock() {
	syscall.SyscallN(procReleaseSRWLockExcl.Addr(), uintptr(unsafe.Pointer(&m.srw)))
}

// cbCond is a CONDITION_VARIABLE. SleepConditionVariableSRW releases the
// lock and sleeps atomically with respect to WakeConditionVariable (a wake
// after the release cannot be lost), and may wake spuriously, which
// crossbeam's loop expects.
type cbCond struct{ cv uintptr }

// Wait unlocks m, waits for a notify (until deadline if timed: std's
// wait_timeout passes dur2timeout, ms rounded up), relocks m.
func (c *cbCond) Wait(m *cbMutex, timed bool, deadline time.Time) {
	ms := uint32(winInfinite)
	if timed {
		ms = 0
		if rem := time.Until(deadline); rem > 0 {
			ms = waTimeoutMs(rem)
		}
	}
	// Returns FALSE with ERROR_TIMEOUT on timeout; crossbeam re-reads its
	// state and the clock either way, so the result is not needed.
	syscall.SyscallN(procSleepConditionVarSRW.Addr(), uintptr(unsafe.Pointer(&c.cv)),
		uintptr(unsafe.Pointer(&m.srw)), uintptr(ms), 0)
}

func (c *cbCond) NotifyOne() {
	syscall.SyscallN(procWakeConditionVariable.Addr(), uintptr(unsafe.Pointer(&c.cv)))
}
