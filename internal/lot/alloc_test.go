package lot

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/parkbench/parkbench/internal/chaos"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Steady state allocates nothing: uncontended paths, the "nobody there"
// paths, and full contended park/unpark, Mutex and Condvar cycles with a
// helper thread (AllocsPerRun counts the whole process's mallocs, so the
// helper's count too).

func assertNoAllocs(t *testing.T, what string, runs int, f func()) {
	t.Helper()
	if chaos.Enabled {
		t.Skip("fault injection (parkchaos) sleeps and counts at every Point")
	}
	if n := testing.AllocsPerRun(runs, f); n != 0 {
		t.Errorf("%s: %v allocations per run, want 0", what, n)
	}
}

func TestAllocsUncontended(t *testing.T) {
	participant(t)
	var m Mutex
	var c Condvar
	var key int
	k := unsafe.Pointer(&key)
	//lint:ignore SA2001 measures the allocations of an uncontended Lock/Unlock pair
	assertNoAllocs(t, "Mutex Lock/Unlock", 1000, func() { m.Lock(); m.Unlock() })
	assertNoAllocs(t, "Mutex TryLock/UnlockFair", 1000, func() { m.TryLock(); m.UnlockFair() })
	assertNoAllocs(t, "Condvar NotifyOne/NotifyAll, nobody waiting", 1000, func() { c.NotifyOne(); c.NotifyAll() })
	assertNoAllocs(t, "UnparkOne, nobody parked", 1000, func() {
		UnparkOne(k, func(UnparkResult) UnparkToken { return DefaultUnparkToken })
	})
	assertNoAllocs(t, "UnparkAll, nobody parked", 1000, func() { UnparkAll(k, DefaultUnparkToken) })
	assertNoAllocs(t, "Park, validate false", 1000, func() {
		Park(k, func() bool { return false }, func() {}, func(unsafe.Pointer, bool) {}, DefaultParkToken, time.Time{})
	})
	assertNoAllocs(t, "Park, timeout", 20, func() {
		Park(k, nil, nil, func(unsafe.Pointer, bool) {}, DefaultParkToken, time.Now().Add(time.Microsecond))
	})
}

// TestAllocsContended runs, over the default backend and pthread, the
// latency experiment's cycle (Park with validate on a flag + UnparkOne)
// and a Mutex + Condvar cycle, each against a helper thread.
func TestAllocsContended(t *testing.T) {
	participant(t)
	for _, name := range []string{parkers.DefaultName(), parkers.NamePthread} {
		b, err := parkers.Lookup(name)
		if err != nil {
			t.Logf("%s: %v", name, err)
			continue
		}
		t.Run(name, func(t *testing.T) {
			participant(t)
			withBackend(t, b, func(t *testing.T) {
				allocsParkCycle(t)
				allocsCondvarCycle(t)
			})
		})
	}
}

func allocsParkCycle(t *testing.T) {
	var flag atomic.Uint32 // 1: the helper should sleep
	var acks atomic.Int64
	var stop atomic.Bool
	k := unsafe.Pointer(&flag)
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		for !stop.Load() {
			Park(k, func() bool { return flag.Load() == 1 }, nil, nil, DefaultParkToken, time.Time{})
			if flag.Load() == 0 {
				flag.Store(1)
				acks.Add(1)
			}
		}
	})
	flag.Store(1)
	assertNoAllocs(t, "contended Park/UnparkOne cycle", 200, func() {
		before := acks.Load()
		flag.Store(0)
		for acks.Load() == before {
			UnparkOne(k, nil)
			runtime.Gosched()
		}
	})
	stop.Store(true)
	flag.Store(0)
	for {
		UnparkOne(k, nil)
		if waitQuick(&wg) {
			break
		}
	}
}

func allocsCondvarCycle(t *testing.T) {
	var m Mutex
	var c Condvar
	pending := false
	stop := false
	var acks atomic.Int64
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		m.Lock()
		for !stop {
			for !pending && !stop {
				c.Wait(&m)
			}
			if pending {
				pending = false
				acks.Add(1)
			}
		}
		m.Unlock()
	})
	assertNoAllocs(t, "contended Mutex + Condvar cycle", 200, func() {
		before := acks.Load()
		m.Lock()
		pending = true
		c.NotifyOne()
		m.Unlock()
		for acks.Load() == before {
			runtime.Gosched()
		}
	})
	m.Lock()
	stop = true
	c.NotifyAll()
	m.Unlock()
	waitTimeout(t, &wg, "condvar helper")
}

// waitQuick reports whether wg finishes within a few milliseconds.
func waitQuick(wg *sync.WaitGroup) bool {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Millisecond):
		return false
	}
}
