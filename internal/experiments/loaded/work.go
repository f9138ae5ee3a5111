package loaded

import (
	"math"

	"github.com/parkbench/parkbench/internal/monoclock"
)

// workSink keeps the work live and its input unknown to the compiler.
var workSink uint64

// work is one request's CPU work: n steps of a dependent multiply-add
// (each step waits for the previous one), so that its time is the core's,
// and a request preempted in the middle takes longer, as schbench's matrix
// math under its per-CPU lock (schbench.c:1319-1337) does.
//
//go:noinline
func work(n int, seed uint64) uint64 {
	x := seed | 1
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// calibrate returns ns per work step: the fastest of 30 batches of 100 000
// steps. On a loaded machine a preempted batch is slower, never faster, so
// the minimum is the step's cost.
func calibrate() float64 {
	const n = 100_000
	best := math.Inf(1)
	for i := 0; i < 30; i++ {
		t0 := monoclock.Nanotime()
		workSink += work(n, workSink)
		best = min(best, float64(monoclock.Nanotime()-t0)/n)
	}
	return best
}
