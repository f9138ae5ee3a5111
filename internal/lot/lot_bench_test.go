package lot

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// lot.Mutex vs sync.Mutex and lot.Condvar vs sync.Cond, uncontended and
// contended. The contended ones use b.RunParallel (goroutines; with the
// thread-level lot they park threads, with sync they park goroutines) or
// two goroutines locked to their threads.

func BenchmarkMutexUncontended(b *testing.B) {
	b.Run("lot", func(b *testing.B) {
		var m Mutex
		for b.Loop() {
			m.Lock()
			//lint:ignore SA2001 the benchmark measures an uncontended Lock/Unlock pair
			m.Unlock()
		}
	})
	b.Run("sync", func(b *testing.B) {
		var m sync.Mutex
		for b.Loop() {
			m.Lock()
			//lint:ignore SA2001 the benchmark measures an uncontended Lock/Unlock pair
			m.Unlock()
		}
	})
}

func BenchmarkMutexContended(b *testing.B) {
	work := func() { burn(20) } // a short critical section
	b.Run("lot", func(b *testing.B) {
		var m Mutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Lock()
				work()
				m.Unlock()
			}
		})
	})
	b.Run("sync", func(b *testing.B) {
		var m sync.Mutex
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				m.Lock()
				work()
				m.Unlock()
			}
		})
	})
}

func BenchmarkCondvarNotifyNobody(b *testing.B) {
	b.Run("lot", func(b *testing.B) {
		var c Condvar
		for b.Loop() {
			c.NotifyOne()
		}
	})
	b.Run("sync", func(b *testing.B) {
		c := sync.NewCond(&sync.Mutex{})
		for b.Loop() {
			c.Signal()
		}
	})
}

// condPingPong: two threads take turns through one mutex and two condition
// waits per round trip (wait, notify, wait, notify).
func BenchmarkCondvarPingPong(b *testing.B) {
	b.Run("lot", func(b *testing.B) {
		var m Mutex
		var c Condvar
		turn := 0
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			m.Lock()
			for i := 0; i < b.N; i++ {
				for turn != 1 {
					c.Wait(&m)
				}
				turn = 0
				c.NotifyOne()
			}
			m.Unlock()
			close(done)
		}()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ResetTimer()
		m.Lock()
		for i := 0; i < b.N; i++ {
			turn = 1
			c.NotifyOne()
			for turn != 0 {
				c.Wait(&m)
			}
		}
		m.Unlock()
		<-done
	})
	b.Run("sync", func(b *testing.B) {
		var m sync.Mutex
		c := sync.NewCond(&m)
		turn := 0
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			m.Lock()
			for i := 0; i < b.N; i++ {
				for turn != 1 {
					c.Wait()
				}
				turn = 0
				c.Signal()
			}
			m.Unlock()
			close(done)
		}()
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ResetTimer()
		m.Lock()
		for i := 0; i < b.N; i++ {
			turn = 1
			c.Signal()
			for turn != 0 {
				c.Wait()
			}
		}
		m.Unlock()
		<-done
	})
}

// BenchmarkCondvarBroadcast: 8 threads wait, one NotifyAll (requeue) vs
// Broadcast per round, and the round ends when all 8 have been through.
func BenchmarkCondvarBroadcast(b *testing.B) {
	const n = 8
	b.Run("lot", func(b *testing.B) {
		var m Mutex
		var c Condvar
		gen, seen := 0, 0
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				m.Lock()
				for g := 1; g <= b.N; g++ {
					for gen < g {
						c.Wait(&m)
					}
					seen++
					if seen == n {
						c.NotifyAll()
					}
				}
				m.Unlock()
			}()
		}
		b.ResetTimer()
		m.Lock()
		for g := 1; g <= b.N; g++ {
			seen = 0
			gen = g
			c.NotifyAll()
			for seen < n {
				c.Wait(&m)
			}
		}
		m.Unlock()
		wg.Wait()
	})
	b.Run("sync", func(b *testing.B) {
		var m sync.Mutex
		c := sync.NewCond(&m)
		gen, seen := 0, 0
		var wg sync.WaitGroup
		for i := 0; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread()
				m.Lock()
				for g := 1; g <= b.N; g++ {
					for gen < g {
						c.Wait()
					}
					seen++
					if seen == n {
						c.Broadcast()
					}
				}
				m.Unlock()
			}()
		}
		b.ResetTimer()
		m.Lock()
		for g := 1; g <= b.N; g++ {
			seen = 0
			gen = g
			c.Broadcast()
			for seen < n {
				c.Wait()
			}
		}
		m.Unlock()
		wg.Wait()
	})
}

// BenchmarkCallbackPaths times the lot's operations that run callbacks
// but never sleep: Park refused by validate, UnparkOne / UnparkRequeue /
// UnparkFilter with nobody parked. They are where the panic guards of the
// callbacks cost (a deferred check each), with no syscall to hide it.
func BenchmarkCallbackPaths(b *testing.B) {
	var key, to int
	k, kt := unsafe.Pointer(&key), unsafe.Pointer(&to)
	b.Run("ParkInvalid", func(b *testing.B) {
		for b.Loop() {
			Park(k, func() bool { return false }, nil, nil, DefaultParkToken, time.Time{})
		}
	})
	b.Run("UnparkOneNobody", func(b *testing.B) {
		for b.Loop() {
			UnparkOne(k, func(UnparkResult) UnparkToken { return 0 })
		}
	})
	b.Run("UnparkRequeueNobody", func(b *testing.B) {
		for b.Loop() {
			UnparkRequeue(k, kt, func() RequeueOp { return RequeueOpUnparkOneRequeueRest },
				func(RequeueOp, UnparkResult) UnparkToken { return 0 })
		}
	})
	b.Run("UnparkFilterNobody", func(b *testing.B) {
		for b.Loop() {
			UnparkFilter(k, func(ParkToken) FilterOp { return FilterOpUnpark },
				func(UnparkResult) UnparkToken { return 0 })
		}
	})
}

// BenchmarkSelfwakePair is E12's reverse check for impl lot (parkbench
// selfwake): UnparkOne on a key nobody waits on, then Park whose validate
// fails. scripts/vs-rust.sh selfwake sets it beside the real
// parking_lot_core's.
func BenchmarkSelfwakePair(b *testing.B) {
	var key int
	k := unsafe.Pointer(&key)
	invalid := func() bool { return false }
	for b.Loop() {
		UnparkOne(k, nil)
		Park(k, invalid, nil, nil, DefaultParkToken, time.Time{})
	}
}

// BenchmarkSelfwakeLockedOps is the self-wake pair's four locked
// instructions and nothing else: a bucket's WordLock locked and unlocked
// twice, as UnparkOne and Park each do once. Beside BenchmarkSelfwakePair
// (scripts/vs-rust.sh modes) it tells a slowdown of the pair's other
// work (the calls, the hash, the table and stack traffic) from one of
// the atomics.
func BenchmarkSelfwakeLockedOps(b *testing.B) {
	var l wordLock
	for b.Loop() {
		l.lock()
		l.unlock()
		l.lock()
		l.unlock()
	}
}
