//go:build windows

package parkers

import (
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// The real Windows APIs, loaded at run time as upstream does with
// GetModuleHandle/GetProcAddress (here LazySystemDLL, which loads from
// System32 only). The calls go through syscall.SyscallN, which tells the Go
// scheduler the thread is in a system call, so a blocked wait releases its P.

// realWaitAddress calls WaitOnAddress / WakeByAddressSingle. MSDN places them
// in kernel32, but they are exported from the API set
// api-ms-win-core-synch-l1-2-0.dll (upstream's comment: "they are lying").
type realWaitAddress struct{ wait, wake uintptr }

func (r *realWaitAddress) WaitOnAddress(addr, compare unsafe.Pointer, size uintptr, ms uint32) bool {
	ret, _, _ := syscall.SyscallN(r.wait, uintptr(addr), uintptr(compare), size, uintptr(ms))
	return ret != 0
}

func (r *realWaitAddress) WakeByAddressSingle(addr unsafe.Pointer) {
	syscall.SyscallN(r.wake, uintptr(addr))
}

// realKeyedEvent is one process-wide keyed event handle and ntdll's wait and
// release.
type realKeyedEvent struct {
	handle        uintptr
	wait, release uintptr
}

func (k *realKeyedEvent) Wait(key unsafe.Pointer, timeout *int64) uint32 {
	r, _, _ := syscall.SyscallN(k.wait, k.handle, uintptr(key), 0, uintptr(unsafe.Pointer(timeout)))
	return uint32(r)
}

func (k *realKeyedEvent) Release(key unsafe.Pointer) uint32 {
	r, _, _ := syscall.SyscallN(k.release, k.handle, uintptr(key), 0, 0)
	return uint32(r)
}

type realWinLoader struct {
	waOnce sync.Once
	wa     *realWaitAddress
	waErr  error
	keOnce sync.Once
	ke     *realKeyedEvent
	keErr  error
}

func (l *realWinLoader) WaitAddress() (waitAddressAPI, error) {
	l.waOnce.Do(func() {
		dll := windows.NewLazySystemDLL("api-ms-win-core-synch-l1-2-0.dll")
		wait, wake := dll.NewProc("WaitOnAddress"), dll.NewProc("WakeByAddressSingle")
		if err := wait.Find(); err != nil {
			l.waErr = fmt.Errorf("WaitOnAddress is a Windows 8+ API: %v", err)
			return
		}
		if err := wake.Find(); err != nil {
			l.waErr = fmt.Errorf("WakeByAddressSingle is a Windows 8+ API: %v", err)
			return
		}
		l.wa = &realWaitAddress{wait: wait.Addr(), wake: wake.Addr()}
	})
	if l.waErr != nil {
		return nil, l.waErr
	}
	return l.wa, nil
}

func (l *realWinLoader) KeyedEvent() (keyedEventAPI, error) {
	l.keOnce.Do(func() {
		ntdll := windows.NewLazySystemDLL("ntdll.dll")
		create := ntdll.NewProc("NtCreateKeyedEvent")
		release := ntdll.NewProc("NtReleaseKeyedEvent")
		wait := ntdll.NewProc("NtWaitForKeyedEvent")
		for _, p := range []*windows.LazyProc{create, release, wait} {
			if err := p.Find(); err != nil {
				l.keErr = fmt.Errorf("NT keyed events (ntdll, Windows XP+): %v", err)
				return
			}
		}
		var handle uintptr
		const access = windows.GENERIC_READ | windows.GENERIC_WRITE
		st, _, _ := syscall.SyscallN(create.Addr(), uintptr(unsafe.Pointer(&handle)), access, 0, 0)
		if st != statusSuccess {
			l.keErr = fmt.Errorf("NtCreateKeyedEvent: NTSTATUS %#x", st)
			return
		}
		l.ke = &realKeyedEvent{handle: handle, wait: wait.Addr(), release: release.Addr()}
	})
	if l.keErr != nil {
		return nil, l.keErr
	}
	return l.ke, nil
}

var (
	winLoad = &realWinLoader{}
	winSel  = &winSelector{loader: winLoad}
)

func init() {
	windowsDefault = func() (string, error) {
		c, err := winSel.get()
		if err != nil {
			return "", err
		}
		return c.name, nil
	}
	provide(NameWaitOnAddress, func() error {
		_, err := winLoad.WaitAddress()
		return err
	}, func() ThreadParker {
		api, err := winLoad.WaitAddress()
		if err != nil {
			panic(err.Error())
		}
		return newWaitAddressParker(api)
	}, nil)
	provide(NameKeyedEvent, func() error {
		_, err := winLoad.KeyedEvent()
		return err
	}, func() ThreadParker {
		api, err := winLoad.KeyedEvent()
		if err != nil {
			panic(err.Error())
		}
		return newKeyedEventParker(api)
	}, nil)
}
