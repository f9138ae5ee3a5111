// Package memorder checks, at run time, that the platform gives Go's
// atomics the order the Go memory model promises: "all the atomic
// operations executed in a program behave as though executed in some
// sequentially consistent order" (go.dev/ref/mem, sync/atomic). Every
// parker's missed-wakeup argument rests on it: the owner's store to its
// parker word is ordered before its next load of the caller's flag, and
// the waker's flag store before its load of the parker word (store->load,
// the one order x86's store buffer and arm's weak ordering relax for plain
// accesses; the atomics' fences and arm64's STLR/LDAR pairs forbid it).
//
// Real hardware keeps that promise. An emulator may not: under qemu-user
// 7.2 running linux/arm64 on an x86-64 host, 1-12% of this litmus's rounds
// end with both loads 0 (an STLR then an LDAR let the load pass the store;
// the host's store buffer is the likely mechanism: docs/platforms.md,
// "qemu-user"). The lost-wakeup tests would report the emulator's
// reordering as the parkers' lost wakeups; they call
// SkipUnlessStoreLoadOrdered first.
package memorder

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Result is one run of the store-buffering litmus.
type Result struct {
	// Rounds both threads completed; Forbidden of them ended with both
	// loads seeing 0, which sequential consistency forbids.
	Rounds, Forbidden int
	// Skipped says why no round ran (one CPU: the two threads would never
	// overlap); "" when rounds ran.
	Skipped string
}

func (r Result) String() string {
	if r.Skipped != "" {
		return "store-buffering litmus not run: " + r.Skipped
	}
	return fmt.Sprintf("store-buffering litmus: %d of %d rounds saw both loads 0 (forbidden for sequentially consistent atomics)", r.Forbidden, r.Rounds)
}

// cell is one round's variable on its own cache line.
type cell struct {
	v atomic.Int32
	_ [60]byte
}

// StoreBuffering runs the litmus
//
//	thread A: x = 1; r1 = y        thread B: y = 1; r2 = x
//
// with sync/atomic stores and loads, for up to rounds rounds or budget,
// whichever ends first, on two locked threads that meet at a spin barrier
// before every round (so the two halves overlap). It needs two CPUs.
func StoreBuffering(rounds int, budget time.Duration) Result {
	return run(rounds, budget, func(c *cell, other *cell) int32 {
		c.v.Store(1)
		return other.v.Load()
	})
}

// storeBufferingPlain is the same litmus with plain accesses (a data race
// by design): the mutant a test uses to show the litmus can see a
// reordering where the hardware makes one (x86's store buffer).
func storeBufferingPlain(rounds int, budget time.Duration) Result {
	return run(rounds, budget, func(c *cell, other *cell) int32 {
		p, q := plain(c), plain(other)
		*p = 1
		return *q
	})
}

func run(rounds int, budget time.Duration, step func(mine, other *cell) int32) Result {
	if runtime.NumCPU() < 2 {
		return Result{Skipped: fmt.Sprintf("needs two CPUs (NumCPU %d)", runtime.NumCPU())}
	}
	// Two Ps for the two threads, whatever the caller left set (a test
	// that lowered GOMAXPROCS must not turn the litmus into a skip).
	if prev := runtime.GOMAXPROCS(0); prev < 2 {
		runtime.GOMAXPROCS(2)
		defer runtime.GOMAXPROCS(prev)
	}
	x, y := make([]cell, rounds), make([]cell, rounds)
	r1, r2 := make([]int32, rounds), make([]int32, rounds)
	var arrive atomic.Int64
	var stop atomic.Bool
	// barrier: both threads have arrived for round i (1-based). Only A
	// sets stop, and only instead of arriving, so B can never pass a
	// barrier A has not reached: the rounds A completed are B's too.
	barrier := func(i int64) bool {
		arrive.Add(1)
		for arrive.Load() < 2*i {
			if stop.Load() {
				return false
			}
		}
		return true
	}
	var wg sync.WaitGroup
	done := [2]int{}
	deadline := time.Now().Add(budget)
	for side := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			mine, other, out := x, y, r1
			if side == 1 {
				mine, other, out = y, x, r2
			}
			for i := range rounds {
				if side == 0 && i&255 == 0 && time.Now().After(deadline) {
					stop.Store(true)
					return
				}
				if !barrier(int64(i + 1)) {
					return
				}
				out[i] = step(&mine[i], &other[i])
				done[side] = i + 1
			}
		}()
	}
	wg.Wait()
	res := Result{Rounds: min(done[0], done[1])}
	for i := range res.Rounds {
		if r1[i] == 0 && r2[i] == 0 {
			res.Forbidden++
		}
	}
	return res
}

var (
	once   sync.Once
	result Result
)

// checkedRounds: under qemu-user 1-12% of rounds show the reordering, so
// this many leave no doubt; natively they take about 30 ms.
const checkedRounds = 50000

// Checked runs StoreBuffering once per process (checkedRounds rounds, or
// 2 s on a loaded machine where the two threads rarely run at once) and
// returns its result.
func Checked() Result {
	once.Do(func() { result = StoreBuffering(checkedRounds, 2*time.Second) })
	return result
}

// TB is the part of testing.TB SkipUnlessStoreLoadOrdered uses.
type TB interface {
	Helper()
	Logf(format string, args ...any)
	Skipf(format string, args ...any)
}

// SkipUnlessStoreLoadOrdered skips the test when this platform reordered
// an atomic store with a later atomic load in the litmus (Checked), or when
// it runs non-x86 code translated onto an x86 host (ForeignX86Host), where
// the litmus shows the reordering in most runs but not in every one: a
// test of a missed-wakeup argument would then report the platform's
// reordering. Where the litmus could not run (one CPU), the test goes on:
// two threads that never overlap cannot reorder either.
func SkipUnlessStoreLoadOrdered(t TB) {
	t.Helper()
	r := Checked()
	if r.Forbidden > 0 {
		t.Skipf("this platform breaks the Go memory model's sequentially consistent atomics (%v; qemu-user on an x86 host does: docs/platforms.md): a lost wakeup here would be the platform's, not the parker's", r)
	}
	if why := ForeignX86Host(); why != "" {
		t.Skipf("%s, whose translation of store-release then load-acquire may let the load pass the store (docs/platforms.md; this process's litmus happened to see none: %v): a lost wakeup here would be the platform's, not the parker's", why, r)
	}
	t.Logf("%v", r)
}
