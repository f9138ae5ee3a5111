package spin

import (
	"math"
	"runtime"
	"time"

	"github.com/parkbench/parkbench/internal/lot"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/parkers"
)

// A spin phase is a strategy's wait before it parks: it returns true when
// the word was set while it spun, false when its policy says park now
// (the caller then parks: word.park). Each runs on the waiter's thread,
// owns its counters (made fresh per wait) and never blocks.
type spinPhase func(w *word) bool

// Unbounded is the budget of a waiter that never parks.
const Unbounded = time.Duration(math.MaxInt64)

// fixedSpin spins up to budget on the monotonic clock, a PAUSE per look
// (0: parks at once; Unbounded: never parks).
func fixedSpin(budget time.Duration) spinPhase {
	switch budget {
	case 0:
		return func(*word) bool { return false }
	case Unbounded:
		return func(w *word) bool {
			for !w.ready() {
				procyield(1)
			}
			return true
		}
	}
	return func(w *word) bool {
		end := monoclock.Nanotime() + int64(budget)
		for !w.ready() {
			procyield(1)
			if monoclock.Nanotime() >= end {
				return w.ready()
			}
		}
		return true
	}
}

// lotSpin is parking_lot's mutex before it parks, through lot's port of
// its SpinWait (internal/lot/spinwait.go): lock_slow spins while nobody
// is parked and spinwait.spin() says so (Amanieu/parking_lot
// src/raw_mutex.rs:229), and SpinWait::spin gives 3 rounds of 2, 4 and 8
// cpu_relax, then 7 thread_yield, then false (core/src/spinwait.rs:48-59).
func lotSpin(w *word) bool {
	var sw lot.SpinWait
	for !w.ready() {
		if !sw.Spin() {
			return false
		}
	}
	return true
}

// Go's sync.Mutex spin (golang/go src/internal/sync/mutex.go:104-116 at
// go1.26): while the mutex is locked and runtime_canSpin(iter), it spins
// runtime_doSpin (procyield(active_spin_cnt)), iter++, and looks again;
// then it queues on the runtime semaphore. canSpin (src/runtime/proc.go:
// 7938-7951) allows it while iter < active_spin, on a multicore machine,
// with GOMAXPROCS > 1, while at least one other P is running
// (gomaxprocs > npidle + nmspinning + 1) and the P's local run queue is
// empty. active_spin = 4, active_spin_cnt = 30 (src/runtime/lock_spinbit.go:
// 54-55).
const (
	goActiveSpin    = 4
	goActiveSpinCnt = 30
)

// goSpin is that policy on the word; otherRunning is canSpin's test of
// the other Ps, which user code cannot read per look: the run reads it
// once per round from runtime/metrics (/sched/goroutines/running: at
// least two goroutines running, the waiter's and the waker's), and the
// waiter's locked thread has no local run queue of its own.
func goSpin(otherRunning bool) spinPhase {
	multicore := runtime.NumCPU() > 1 && runtime.GOMAXPROCS(0) > 1
	return func(w *word) bool {
		for iter := 0; !w.ready(); iter++ {
			if iter >= goActiveSpin || !multicore || !otherRunning {
				return false
			}
			procyield(goActiveSpinCnt)
		}
		return true
	}
}

// crossbeam-utils' Backoff (crossbeam-rs/crossbeam crossbeam-utils/src/
// backoff.rs at 7de845aa): SPIN_LIMIT 6, YIELD_LIMIT 10 (lines 5-6);
// snooze spins 1 << step spin_loop hints while step <= SPIN_LIMIT, else
// yields the thread, and counts step up to YIELD_LIMIT + 1 (207-224);
// is_completed is step > YIELD_LIMIT (271-273). Its documented blocking
// wait (the example of is_completed, and crossbeam-channel's) is
// "while !ready { if backoff.is_completed() { park } else { snooze } }".
const (
	cbSpinLimit  = 6
	cbYieldLimit = 10
)

func crossbeamSpin(w *word) bool {
	step := uint32(0)
	for !w.ready() {
		if step > cbYieldLimit {
			return false
		}
		if step <= cbSpinLimit {
			procyield(1 << step)
		} else {
			parkers.Yield()
		}
		if step <= cbYieldLimit {
			step++
		}
	}
	return true
}
