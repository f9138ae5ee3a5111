//go:build !linux

package rawfutex

import (
	"runtime"
	"sync/atomic"
	"time"
)

// Supported says the raw futex operations exist here: they do not.
const Supported = false

const notHere = "rawfutex: futexes exist only on Linux; this is " + runtime.GOOS

// Flag is 0: there are no futexes here.
func Flag(shared bool) uintptr { return 0 }

// Wait, Wake, Requeue and WaitFail panic: callers check Supported.
func Wait(w *atomic.Uint32, val uint32, flag uintptr) bool     { panic(notHere) }
func Wake(w *atomic.Uint32, n int, flag uintptr) int           { panic(notHere) }
func Requeue(from, to *atomic.Uint32, n int, flag uintptr) int { panic(notHere) }
func WaitFail(w *uint32, flag uintptr) bool                    { panic(notHere) }

// ThreadSleep sleeps d.
func ThreadSleep(d time.Duration) { time.Sleep(d) }

// SetTimerSlack does nothing: no timer slack to set here.
func SetTimerSlack(d time.Duration) error { return nil }
