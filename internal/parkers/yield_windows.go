//go:build windows

package parkers

import "golang.org/x/sys/windows"

// Yield is parking_lot's Windows thread_yield: Sleep(0). Upstream
// deliberately does not use SwitchToThread: SwitchToThread only considers
// threads ready on the current processor, so the thread we are waiting for
// (possibly on another processor) might not be the one chosen; Sleep(0)
// gives the rest of the time slice to any ready thread of equal priority
// (core/src/thread_parker/windows/mod.rs).
func Yield() {
	windows.SleepEx(0, false)
}

const yieldImpl = "Sleep(0)"
