package parkers

import (
	"errors"
	"sync/atomic"
	"unsafe"
)

// The Windows backends' logic lives in OS-independent files (keyedevent.go, waitonaddress.go, windows_choice.go, std_windows7.go)
// behind these small interfaces, so it is unit-tested on Linux with fakes;
// winapi_windows.go supplies the real DLL calls.

// waitAddressAPI is WaitOnAddress / WakeByAddressSingle
// (api-ms-win-core-synch-l1-2-0.dll, Windows 8+).
type waitAddressAPI interface {
	// WaitOnAddress sleeps while *addr equals *compare (size bytes), at
	// most ms milliseconds (winInfinite: no limit). False means timeout.
	WaitOnAddress(addr, compare unsafe.Pointer, size uintptr, ms uint32) bool
	WakeByAddressSingle(addr unsafe.Pointer)
}

// keyedEventAPI is NtWaitForKeyedEvent / NtReleaseKeyedEvent on one keyed
// event handle (ntdll.dll, Windows XP+). Keyed events are a rendezvous: a
// release blocks until a waiter on the same key takes it, and a wait blocks
// until a release comes.
type keyedEventAPI interface {
	// Wait waits for a release of key; timeout is in 100 ns units,
	// negative = relative, nil = infinite. It returns the NTSTATUS.
	Wait(key unsafe.Pointer, timeout *int64) uint32
	// Release releases one waiter on key, blocking until there is one.
	Release(key unsafe.Pointer) uint32
}

const (
	winInfinite   = 0xFFFFFFFF // INFINITE
	statusSuccess = 0x00000000 // STATUS_SUCCESS
	statusTimeout = 0x00000102 // STATUS_TIMEOUT
)

// winLoader finds the two APIs; each returns an error saying what is
// missing.
type winLoader interface {
	WaitAddress() (waitAddressAPI, error)
	KeyedEvent() (keyedEventAPI, error)
}

// winChoice is the process-wide backend upstream's Backend::get creates.
type winChoice struct {
	name string // NameWaitOnAddress or NameKeyedEvent
	wa   waitAddressAPI
	ke   keyedEventAPI
}

// winNoBackend is upstream's panic message (windows/mod.rs).
const winNoBackend = "parking_lot requires either NT Keyed Events (WinXP+) or WaitOnAddress/WakeByAddress (Win8+)"

// selectWindows is upstream's order: WaitOnAddress first, then keyed events,
// else the panic message (returned as the error; the caller panics).
func selectWindows(l winLoader) (*winChoice, error) {
	wa, errWA := l.WaitAddress()
	if errWA == nil {
		return &winChoice{name: NameWaitOnAddress, wa: wa}, nil
	}
	ke, errKE := l.KeyedEvent()
	if errKE == nil {
		return &winChoice{name: NameKeyedEvent, ke: ke}, nil
	}
	return nil, errors.New(winNoBackend + " (" + errWA.Error() + "; " + errKE.Error() + ")")
}

// winSelector caches the choice: upstream decides once, at the first
// ThreadParker construction, "to ensure we don't get any panics later on,
// which could leave synchronization primitives in a broken state". The
// first successful choice wins and is never replaced; a failure is retried
// (it panics anyway).
type winSelector struct {
	loader winLoader
	chosen atomic.Pointer[winChoice]
}

func (s *winSelector) get() (*winChoice, error) {
	if c := s.chosen.Load(); c != nil {
		return c, nil
	}
	c, err := selectWindows(s.loader)
	if err != nil {
		return nil, err
	}
	if !s.chosen.CompareAndSwap(nil, c) {
		c = s.chosen.Load() // lost the race: use the published one
	}
	return c, nil
}

// newParker is Windows' ThreadParker::new(): pick the backend (panicking
// with upstream's message if there is none), then build its parker.
func (s *winSelector) newParker() ThreadParker {
	c, err := s.get()
	if err != nil {
		panic(err.Error())
	}
	if c.wa != nil {
		return newWaitAddressParker(c.wa)
	}
	return newKeyedEventParker(c.ke)
}
