//go:build !linux && !windows

package parkers

import "runtime"

// cgoYield is libc's sched_yield, set by the cgo file (setCgoYield); Yield
// uses it where there is no sched_yield system call to reach without libc
// (macOS).
var cgoYield func()

//lint:ignore U1000 called by pthread_cgo.go's init, which only cgo builds compile
func setCgoYield(f func()) { cgoYield = f }

// Yield is the platform's thread_yield: libc sched_yield through cgo when the
// build has cgo, else runtime.Gosched, which yields this goroutine's P to
// other goroutines but does not ask the kernel to run another thread
// (documented departure: without libc there is no portable sched_yield here;
// on wasm there is only one thread anyway).
func Yield() {
	if cgoYield != nil {
		cgoYield()
		return
	}
	runtime.Gosched()
}

const yieldImpl = "sched_yield(3) via cgo, else runtime.Gosched"
