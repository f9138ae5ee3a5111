package lot

import "github.com/parkbench/parkbench/internal/parkers"

// threadYield is upstream's thread_yield (sched_yield(2) on Linux): it
// yields the OS thread, not only the goroutine.
func threadYield() { parkers.Yield() }
