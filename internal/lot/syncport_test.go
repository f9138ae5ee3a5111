package lot

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of Go's sync package (go/src/sync/cond_test.go,
// mutex_test.go, waitgroup_test.go) ported onto Mutex, Condvar and
// WaitGroup: Signal is NotifyOne, Broadcast NotifyAll, c.Wait() is
// c.Wait(&m). Each runs twice: on goroutines locked to their OS threads
// (how parkbench's participants run) and on plain goroutines. Go's sleeps
// and "within 2 s / 10 s" limits become the watchdogs (recvTimeout,
// participant), which fail with every goroutine's stack.

// spawner starts fn on a new goroutine, locked to its OS thread or not; a
// panic in fn fails the test.
type spawner func(fn func())

// forSpawners runs f once with each spawner.
func forSpawners(t *testing.T, f func(t *testing.T, spawn spawner)) {
	participant(t)
	for _, locked := range []bool{true, false} {
		name := "goroutines"
		if locked {
			name = "threads"
		}
		t.Run(name, func(t *testing.T) {
			participant(t)
			f(t, func(fn func()) {
				go func() {
					if locked {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
					}
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("goroutine panicked: %v", r)
						}
					}()
					fn()
				}()
			})
		})
	}
}

// recvTimeout receives from ch, failing the test with every goroutine's
// stack if nothing comes within the watchdog (a lost wakeup).
func recvTimeout[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(watchdogTimeout):
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("watchdog: %s did not happen within %v (lost wakeup?)\n%s", what, watchdogTimeout, buf[:n])
		panic("unreachable")
	}
}

func TestSyncCondSignal(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		var m Mutex
		var c Condvar
		n := 2
		running := make(chan bool, n)
		awake := make(chan bool, n)
		for i := 0; i < n; i++ {
			spawn(func() {
				m.Lock()
				running <- true
				c.Wait(&m)
				awake <- true
				m.Unlock()
			})
		}
		for i := 0; i < n; i++ {
			recvTimeout(t, running, "a waiter running") // Wait for everyone to run.
		}
		for n > 0 {
			select {
			case <-awake:
				t.Fatal("goroutine not asleep")
			default:
			}
			m.Lock()
			c.NotifyOne()
			m.Unlock()
			recvTimeout(t, awake, "a signalled waiter waking")
			select {
			case <-awake:
				t.Fatal("too many goroutines awake")
			default:
			}
			n--
		}
		c.NotifyOne()
	})
}

func TestSyncCondSignalGenerations(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		var m Mutex
		var c Condvar
		n := scale(100, 30)
		running := make(chan bool, n)
		awake := make(chan int, n)
		for i := 0; i < n; i++ {
			i := i
			spawn(func() {
				m.Lock()
				running <- true
				c.Wait(&m)
				awake <- i
				m.Unlock()
			})
			if i > 0 {
				a := recvTimeout(t, awake, "the previous waiter waking")
				if a != i-1 {
					t.Fatalf("wrong goroutine woke up: want %d, got %d", i-1, a)
				}
			}
			recvTimeout(t, running, "a waiter running")
			m.Lock()
			c.NotifyOne()
			m.Unlock()
		}
		recvTimeout(t, awake, "the last waiter waking")
	})
}

func TestSyncCondBroadcast(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		var m Mutex
		var c Condvar
		n := scale(200, 20)
		running := make(chan int, n)
		awake := make(chan int, n)
		exit := false
		for i := 0; i < n; i++ {
			g := i
			spawn(func() {
				m.Lock()
				for !exit {
					running <- g
					c.Wait(&m)
					awake <- g
				}
				m.Unlock()
			})
		}
		for i := 0; i < n; i++ {
			for i := 0; i < n; i++ {
				recvTimeout(t, running, "a waiter running") // Will deadlock unless n are running.
			}
			if i == n-1 {
				m.Lock()
				exit = true
				m.Unlock()
			}
			select {
			case <-awake:
				t.Fatal("goroutine not asleep")
			default:
			}
			m.Lock()
			c.NotifyAll()
			m.Unlock()
			seen := make([]bool, n)
			for i := 0; i < n; i++ {
				g := recvTimeout(t, awake, "a broadcast waiter waking")
				if seen[g] {
					t.Fatal("goroutine woke up twice")
				}
				seen[g] = true
			}
		}
		select {
		case <-running:
			t.Fatal("goroutine did not exit")
		default:
		}
		c.NotifyAll()
	})
}

// TestSyncCondRace is sync's TestRace.
func TestSyncCondRace(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		x := 0
		var m Mutex
		var c Condvar
		done := make(chan bool)
		spawn(func() {
			m.Lock()
			x = 1
			c.Wait(&m)
			if x != 2 {
				t.Error("want 2")
			}
			x = 3
			c.NotifyOne()
			m.Unlock()
			done <- true
		})
		spawn(func() {
			m.Lock()
			for {
				if x == 1 {
					x = 2
					c.NotifyOne()
					break
				}
				m.Unlock()
				runtime.Gosched()
				m.Lock()
			}
			m.Unlock()
			done <- true
		})
		spawn(func() {
			m.Lock()
			for {
				if x == 2 {
					c.Wait(&m)
					if x != 3 {
						t.Error("want 3")
					}
					break
				}
				if x == 3 {
					break
				}
				m.Unlock()
				runtime.Gosched()
				m.Lock()
			}
			m.Unlock()
			done <- true
		})
		for i := 0; i < 3; i++ {
			recvTimeout(t, done, "a racer finishing")
		}
	})
}

func TestSyncCondSignalStealing(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		for iters := 0; iters < scale(1000, 100); iters++ {
			var m Mutex
			var cond Condvar

			// Start a waiter.
			ch := make(chan struct{})
			spawn(func() {
				m.Lock()
				ch <- struct{}{}
				cond.Wait(&m)
				m.Unlock()

				ch <- struct{}{}
			})

			recvTimeout(t, ch, "the first waiter running")
			m.Lock()
			//lint:ignore SA2001 a barrier, as in sync's test: the waiter released m only inside Wait, so it is queued
			m.Unlock()

			// We know that the waiter is in the cond.Wait() call because we
			// synchronized with it, then acquired/released the mutex it was
			// holding when we synchronized.
			//
			// Start two goroutines that will race: one will broadcast on
			// the cond var, the other will wait on it.
			//
			// The new waiter may or may not get notified, but the first one
			// has to be notified.
			done := false
			spawn(func() {
				cond.NotifyAll()
			})

			second := make(chan struct{})
			spawn(func() {
				m.Lock()
				for !done {
					cond.Wait(&m)
				}
				m.Unlock()
				close(second)
			})

			// Check that the first waiter does get signaled.
			recvTimeout(t, ch, "the first waiter getting the broadcast")

			// Release the second waiter in case it didn't get the
			// broadcast.
			m.Lock()
			done = true
			m.Unlock()
			cond.NotifyAll()
			recvTimeout(t, second, "the second waiter leaving")
		}
	})
}

// TestSyncHammerMutex is sync's TestMutex with its HammerMutex.
func TestSyncHammerMutex(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		var m Mutex
		c := make(chan bool)
		counter := 0 // protected by m: the race detector checks it
		for i := 0; i < 10; i++ {
			spawn(func() {
				for i := 0; i < scale(1000, 300); i++ {
					m.Lock()
					counter++
					m.Unlock()
				}
				c <- true
			})
		}
		for i := 0; i < 10; i++ {
			recvTimeout(t, c, "a hammer finishing")
		}
		if want := 10 * scale(1000, 300); counter != want {
			t.Fatalf("counter %d, want %d", counter, want)
		}
	})
}

// TestSyncMutexMisuse is sync's TestMutexMisuse for Mutex (the RWMutex
// cases belong to the RwLock). sync's unlock of an unlocked mutex is
// fatal; ours panics before it changes anything (mutex.go, unlockSlow), so
// it is recovered here and the mutex must still work.
func TestSyncMutexMisuse(t *testing.T) {
	participant(t)
	var mu Mutex
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"Mutex.Unlock", func() { mu.Unlock() }},
		//lint:ignore SA2001 sync's Unlock2 misuse: the second Unlock is the point
		{"Mutex.Unlock2", func() { mu.Lock(); mu.Unlock(); mu.Unlock() }},
		{"Mutex.UnlockFair", func() { mu.UnlockFair() }},
		{"Mutex.UnlockFair2", func() { mu.Lock(); mu.UnlockFair(); mu.UnlockFair() }},
	} {
		r := mustPanic(t, tc.name, tc.f)
		if panicText(r) != "lot: unlock of unlocked Mutex" {
			t.Errorf("%s: panic %v, want a message about the unlocked lock", tc.name, r)
		}
		mutexStillWorks(t, &mu)
	}
}

func TestSyncMutexFairness(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		var mu Mutex
		stop := make(chan bool)
		defer close(stop)
		spawn(func() {
			for {
				mu.Lock()
				time.Sleep(100 * time.Microsecond)
				mu.Unlock()
				select {
				case <-stop:
					return
				default:
				}
			}
		})
		done := make(chan bool, 1)
		spawn(func() {
			for i := 0; i < 10; i++ {
				time.Sleep(100 * time.Microsecond)
				mu.Lock()
				//lint:ignore SA2001 the locker takes the mutex and leaves: its acquisition is what the fairness test measures
				mu.Unlock()
			}
			done <- true
		})
		recvTimeout(t, done, "the second locker getting the mutex 10 times")
	})
}

// testSyncWaitGroup is sync's testWaitGroup on crossbeam's handles: Add(n)
// becomes n clones, Done a clone's Done, and wg2's n Dones by the test are
// the release of its own n handles, one at a time.
func testSyncWaitGroup(t *testing.T, spawn spawner) {
	n := 16
	wg1, wg2 := NewWaitGroup(), NewWaitGroup()
	mine := []*WaitGroup{wg2}
	for len(mine) < n {
		mine = append(mine, wg2.Clone())
	}
	exited := make(chan bool, n)
	for i := 0; i != n; i++ {
		h1, h2 := wg1.Clone(), wg2.Clone()
		spawn(func() {
			h1.Done()
			h2.Wait()
			exited <- true
		})
	}
	wg1.Wait()
	for i := 0; i != n; i++ {
		select {
		case <-exited:
			t.Fatal("WaitGroup released group too soon")
		default:
		}
		mine[i].Done()
	}
	for i := 0; i != n; i++ {
		recvTimeout(t, exited, "a waiter leaving") // Will block if barrier fails to unlock someone.
	}
}

func TestSyncWaitGroup(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		// sync reuses its two groups 8 times; a crossbeam group ends with
		// its last handle, so each round makes new ones.
		for i := 0; i != 8; i++ {
			testSyncWaitGroup(t, spawn)
		}
	})
}

// TestSyncWaitGroupMisuse: sync's negative counter is, with handles, a
// handle released twice (TestWaitGroupMisuse and
// TestWaitGroupMisuseStillWorks test it). sync's Misuse2 and Misuse3 (Add
// concurrent with Wait, reuse before Wait returned) cannot be written
// against handles: there is no Add, and a group is never reused.

func TestSyncWaitGroupRace(t *testing.T) {
	forSpawners(t, func(t *testing.T, spawn spawner) {
		// Run this test for about 1ms.
		for i := 0; i < scale(1000, 200); i++ {
			wg := NewWaitGroup()
			n := new(int32)
			// spawn goroutine 1
			h1 := wg.Clone()
			spawn(func() {
				atomic.AddInt32(n, 1)
				h1.Done()
			})
			// spawn goroutine 2
			h2 := wg.Clone()
			spawn(func() {
				atomic.AddInt32(n, 1)
				h2.Done()
			})
			// Wait for goroutine 1 and 2
			wg.Wait()
			if atomic.LoadInt32(n) != 2 {
				t.Fatal("Spurious wakeup from Wait")
			}
		}
	})
}
