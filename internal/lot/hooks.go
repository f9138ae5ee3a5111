package lot

import (
	"runtime"
	"sync/atomic"
)

// Interim thread_yield / cpu_relax until internal/parkers publishes
// parkers.Yield and parkers.CPURelax; then these forward to them.

var relaxWord atomic.Uint32

// cpuRelax burns n pause-like iterations (upstream: n spin_loop hints).
func cpuRelax(n int) {
	for i := 0; i < n; i++ {
		relaxWord.Load()
	}
}

// threadYield is upstream's thread_yield.
func threadYield() { runtime.Gosched() }
