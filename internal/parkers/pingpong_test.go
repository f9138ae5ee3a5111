package parkers

import (
	"flag"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/parkbench/parkbench/internal/memorder"
	"github.com/parkbench/parkbench/internal/osthread"
)

var flagPingPong = flag.Duration("pingpong.duration", 0,
	"TestPingPongNoLostWakeup: ping-pong this long per pthread backend (0: PARKBENCH_PINGPONG_DURATION, else 1.5s)")

var flagLitmus = flag.Int("pingpong.attempts", 30_000,
	"TestPrepareParkBeforeLaterLoad: attempts per pthread backend (the others make a fiftieth)")

// pingPongDurations returns how long each backend ping-pongs: the pthread
// family, where the lost wakeup of PreparePark's plain store was found, gets
// the long share; the others a short run each.
func pingPongDurations() (pthread, other time.Duration) {
	pthread, other = 1500*time.Millisecond, 200*time.Millisecond
	d := *flagPingPong
	if d == 0 {
		if v, err := time.ParseDuration(os.Getenv("PARKBENCH_PINGPONG_DURATION")); err == nil {
			d = v
		}
	}
	if d > 0 {
		pthread, other = d, d/5
	}
	return pthread, other
}

// ppSide is one side of the ping-pong: its flag, on its own cache line as in
// internal/pingpong/pingpong.go.
type ppSide struct {
	flag atomic.Uint32
	_    [60]byte
}

// TestPingPongNoLostWakeup drives every ThreadParker exactly as the latency
// experiment does (internal/pingpong/mech.go parkerMech and
// internal/pingpong/pingpong.go): two locked threads, pinned to two CPUs when there
// are two; the waker stores the peer's flag and calls UnparkLock().Unpark()
// on every wake (stale unparks included); the waiter loops
// "PreparePark; if flag still 0 { Park }" with no lock of any kind. That is
// the store->load pattern (pthread_cgo.go's PreparePark): with PreparePark's store not ordered
// before the flag load, both sides can end in Park with nobody left to wake
// them. A stall is caught by a progress watchdog, then both threads are
// released.
//
// Default: 1.5 s per pthread backend, 0.2 s for the others. Longer:
// -pingpong.duration=30s or PARKBENCH_PINGPONG_DURATION=30s (per pthread
// backend; the others get a fifth).
func TestPingPongNoLostWakeup(t *testing.T) {
	if runtime.GOARCH == "wasm" {
		t.Skip("two threads ping-pong: wasm has one thread and its parker panics by design")
	}
	memorder.SkipUnlessStoreLoadOrdered(t)
	long, short := pingPongDurations()
	if testing.Short() {
		long, short = long/3, short/3
	}
	cpus := [2]int{-1, -1}
	if aff, err := osthread.Affinity(); err == nil && len(aff) >= 2 {
		cpus = [2]int{aff[0], aff[1]} // cross-core
	}
	for _, b := range All() {
		if b.NewThread == nil || !b.Available() {
			continue
		}
		d := short
		if strings.HasPrefix(b.Name, NamePthread) {
			d = long
		}
		t.Run(b.Name, func(t *testing.T) {
			trips := pingPong(t, b.NewThread, cpus, d)
			t.Logf("%s: %d round trips in %v, cpus %v", b.Name, trips, d, cpus)
		})
	}
}

// pingPong runs the ping-pong for d and returns the round trips made. It
// fails t if progress stops for pingPongStall.
func pingPong(t *testing.T, newParker func() ThreadParker, cpus [2]int, d time.Duration) int64 {
	t.Helper()
	var sides [2]ppSide
	p := [2]ThreadParker{newParker(), newParker()}
	defer func() {
		for _, q := range p {
			if c, ok := q.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}()
	var trips atomic.Int64
	var stop atomic.Bool

	// wait is parkerMech.wait (a thread parker): returns once my flag is
	// set, then clears it before answering (the peer sets it again only
	// after the answer).
	wait := func(me int) {
		f := &sides[me].flag
		for f.Load() == 0 && !stop.Load() {
			p[me].PreparePark()
			if f.Load() == 0 {
				p[me].Park()
			}
		}
		f.Store(0)
	}
	// send is the waker's half: flag, then the wake, unconditionally.
	send := func(peer int) {
		sides[peer].flag.Store(1)
		p[peer].UnparkLock().Unpark()
	}

	done := make(chan int, 2)
	end := time.Now().Add(d)
	for me := 0; me < 2; me++ {
		go func() {
			defer func() { done <- me }()
			// Locked and never unlocked: the pinned thread exits
			// with the goroutine instead of going back to the pool.
			runtime.LockOSThread()
			if cpus[me] >= 0 {
				if err := osthread.Pin(cpus[me]); err != nil {
					t.Errorf("pin to cpu %d: %v", cpus[me], err)
				}
			}
			for !stop.Load() {
				if me == 0 {
					if time.Now().After(end) {
						stop.Store(true)
						send(1) // let side 1 see stop
						return
					}
					send(1)
					wait(0)
					trips.Add(1)
				} else {
					wait(1)
					if stop.Load() {
						return
					}
					send(0)
				}
			}
		}()
	}

	// The watchdog: a lost wakeup stops the trips for good; a loaded
	// machine only slows them. Generous, as every watchdog here.
	const stall = 20 * time.Second
	var released atomic.Bool
	var rescued chan struct{}
	last, since := trips.Load(), time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for finished := 0; finished < 2; {
		select {
		case <-done:
			finished++
		case <-tick.C:
			if n := trips.Load(); n != last || stop.Load() {
				last, since = n, time.Now()
			} else if time.Since(since) > stall {
				t.Errorf("no round trip for %v after %d trips: both sides parked, a lost wakeup (flags %d %d)",
					stall, n, sides[0].flag.Load(), sides[1].flag.Load())
				// Release both threads: stop, and wake them
				// (outside the protocol) until they are out.
				stop.Store(true)
				rescued = make(chan struct{})
				go func() {
					defer close(rescued)
					for !released.Load() {
						for _, q := range p {
							q.UnparkLock().Unpark()
						}
						time.Sleep(time.Millisecond)
					}
				}()
				since = time.Now().Add(time.Hour)
			}
		}
	}
	if rescued != nil {
		released.Store(true)
		<-rescued // before the deferred Close frees the parkers
	}
	return trips.Load()
}

// TestPrepareParkBeforeLaterLoad is the ping-pong's race in litmus form, one
// wake per attempt with the two threads released together by a spin
// barrier, so the store->load window is hit far more often than by the
// ping-pong: the owner runs "PreparePark; look at the flag", the waker "store
// the flag; UnparkLock().Unpark()", the same calls in the same order as the
// latency experiment, and neither side parks. Afterwards, if the owner's
// look saw the flag 0, the waker's UnparkLock came after PreparePark, so the
// parker must be unparked (TimedOut false, checked from the owner thread,
// as its contract asks): otherwise the Park that the owner would now make
// would never return.
func TestPrepareParkBeforeLaterLoad(t *testing.T) {
	if runtime.GOARCH == "wasm" {
		t.Skip("two threads ping-pong: wasm has one thread and its parker panics by design")
	}
	memorder.SkipUnlessStoreLoadOrdered(t)
	long := *flagLitmus
	if testing.Short() {
		long /= 4
	}
	if d, _ := pingPongDurations(); d > 1500*time.Millisecond {
		long *= int(d / (1500 * time.Millisecond))
	}
	cpus := [2]int{-1, -1}
	if aff, err := osthread.Affinity(); err == nil && len(aff) >= 2 {
		cpus = [2]int{aff[0], aff[1]}
	}
	for _, b := range All() {
		if b.NewThread == nil || !b.Available() || b.Kind == KindGoroutine {
			continue
		}
		attempts := long / 50 // a futex wake is a system call: slower
		if strings.HasPrefix(b.Name, NamePthread) {
			attempts = long
		}
		t.Run(b.Name, func(t *testing.T) {
			lost, sawZero := litmus(t, b.NewThread, cpus, attempts)
			t.Logf("%s: %d attempts, flag seen 0 in %d, lost wakeups %d", b.Name, attempts, sawZero, lost)
			if lost > 0 {
				t.Errorf("%s: %d of %d attempts lost the wakeup: the flag load passed PreparePark's store", b.Name, lost, attempts)
			}
		})
	}
}

func litmus(t *testing.T, newParker func() ThreadParker, cpus [2]int, attempts int) (lost, sawZero int) {
	p := newParker()
	defer func() {
		if c, ok := p.(interface{ Close() }); ok {
			c.Close()
		}
	}()
	var flag ppSide
	var arrive [2]ppSide // per side: the last attempt it arrived at
	var stop atomic.Bool
	spinUntil := func(w *atomic.Uint32, v uint32) bool {
		for n := 0; w.Load() < v; n++ {
			if stop.Load() {
				return false
			}
			if n&1023 == 1023 {
				runtime.Gosched() // loaded machine: let the peer run
			}
		}
		return true
	}
	done := make(chan struct{}, 2)
	for me := 0; me < 2; me++ {
		go func() {
			defer func() { done <- struct{}{} }()
			runtime.LockOSThread() // never unlocked: the pinned thread exits
			if cpus[me] >= 0 {
				_ = osthread.Pin(cpus[me])
			}
			// Phases: side s stores 2i-1 when it arrives at attempt i
			// and 2i when it is done with it.
			for i := uint32(1); i <= uint32(attempts); i++ {
				arrive[me].flag.Store(2*i - 1)
				if !spinUntil(&arrive[1-me].flag, 2*i-1) {
					return
				}
				if me == 1 {
					// The waker leaves the barrier first (the owner
					// sees its arrival a cache miss later): a varying
					// delay lines the two halves up.
					CPURelax(int(i*7919) % 97)
					flag.flag.Store(1)
					p.UnparkLock().Unpark()
					arrive[1].flag.Store(2 * i)
					// Wait for side 0's verdict and reset.
					if !spinUntil(&arrive[0].flag, 2*i) {
						return
					}
					continue
				}
				p.PreparePark()
				seen := flag.flag.Load()
				if !spinUntil(&arrive[1].flag, 2*i) {
					return
				}
				if seen == 0 {
					sawZero++
					if p.TimedOut() {
						lost++
						p.UnparkLock().Unpark() // repair, go on
					}
				}
				flag.flag.Store(0)
				arrive[0].flag.Store(2 * i)
			}
		}()
	}
	select {
	case <-done:
		<-done
	case <-time.After(10 * time.Minute):
		stop.Store(true)
		t.Fatal("litmus did not finish in 10 minutes")
	}
	return lost, sawZero
}
