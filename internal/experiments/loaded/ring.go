package loaded

import "sync/atomic"

// ringSize bounds the requests queued to one worker (schbench caps 128
// pending per worker in -R mode, schbench.c:1284-1290; a larger ring
// lets an overloaded run show its queueing in the request latency before
// it drops).
const ringSize = 1024

// ring is one worker's request queue: a single-producer (its message
// thread), single-consumer (the worker) ring of intended start times.
// tail is written by the producer only, head by the consumer only; each
// publishes its slot with the atomic store that moves its index.
type ring struct {
	tail atomic.Uint64
	_    [56]byte
	head atomic.Uint64
	_    [56]byte
	buf  [ringSize]int64
}

// push queues v; false when the ring is full.
func (r *ring) push(v int64) bool {
	t := r.tail.Load()
	if t-r.head.Load() >= ringSize {
		return false
	}
	r.buf[t%ringSize] = v
	r.tail.Store(t + 1)
	return true
}

// pop takes the oldest value.
func (r *ring) pop() (int64, bool) {
	h := r.head.Load()
	if h == r.tail.Load() {
		return 0, false
	}
	v := r.buf[h%ringSize]
	r.head.Store(h + 1)
	return v, true
}

// empty reports whether nothing is queued.
func (r *ring) empty() bool { return r.head.Load() == r.tail.Load() }

// size is how many are queued.
func (r *ring) size() int { return int(r.tail.Load() - r.head.Load()) }
