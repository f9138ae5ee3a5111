//go:build !linux && !windows && !(darwin && cgo)

package parkers

import "runtime"

func init() {
	why := onlyOn("Linux (futex) and macOS (libdispatch semaphore, cgo) only: Rust std's thread parker here is neither")
	if runtime.GOOS == "darwin" {
		why = unavailable("needs cgo (CGO_ENABLED=1 and a C compiler): Rust std's darwin parker is a libdispatch semaphore called through cgo")
	}
	Register(Backend{
		Name:        NameStd,
		Kind:        KindToken,
		Summary:     "Rust std's thread::park (futex on Linux, libdispatch semaphore on macOS)",
		Sleeps:      true,
		Unavailable: why,
		Order:       orderStd,
	})
}
