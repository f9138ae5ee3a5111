//go:build !linux

package wake

import (
	"runtime"
	"sync/atomic"
	"time"
)

// futexOK says the raw futex operations exist here: they do not.
const futexOK = false

const noFutex = "wake: futexes exist only on Linux; this is " + runtime.GOOS

func futexFlag(shared bool) uintptr { return 0 }

func futexWait(w *atomic.Uint32, val uint32, flag uintptr) bool { panic(noFutex) }
func futexWake(w *atomic.Uint32, n int, flag uintptr) int       { panic(noFutex) }
func futexRequeue(from, to *atomic.Uint32, n int, flag uintptr) int {
	panic(noFutex)
}
func futexWaitFail(w *uint32, flag uintptr) bool { panic(noFutex) }

// threadSleep sleeps d (no futexes here, so no perf method to follow).
func threadSleep(d time.Duration) { time.Sleep(d) }
