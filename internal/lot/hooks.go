package lot

import "github.com/parkbench/parkbench/internal/parkers"

// cpuRelax is upstream's cpu_relax(n): n spin-loop hints. Go has no PAUSE
// intrinsic for user code; parkers.CPURelax documents what it does instead.
func cpuRelax(n int) { parkers.CPURelax(n) }

// threadYield is upstream's thread_yield (sched_yield(2) on Linux): it
// yields the OS thread, not only the goroutine.
func threadYield() { parkers.Yield() }
