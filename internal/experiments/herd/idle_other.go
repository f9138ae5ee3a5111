//go:build !linux

package herd

// threadCost cannot read another thread's CPU clock here: the idle pool
// records no CPU or switches per request.
func threadCost(tid int) (cpu, csw int64, ok bool) { return 0, 0, false }
