//go:build linux

package parkers

import (
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/futex"
)

const cbPrimitives = "mutex and condvar are futex-based (Rust std's on Linux), blocking the OS thread"

// cbMutex is Rust std's Linux futex mutex: 0 unlocked, 1 locked, 2 locked
// with (possible) waiters. A waiter only sleeps after storing 2, and Unlock
// wakes whenever it swaps out a 2, so no sleeper is left behind.
type cbMutex struct {
	state atomic.Int32
}

func (m *cbMutex) Lock() {
	if !m.state.CompareAndSwap(0, 1) {
		m.lockContended()
	}
}

// spin is std's Mutex::spin: up to 100 relaxed reads while it is locked
// without waiters.
func (m *cbMutex) spin() int32 {
	for n := 100; ; n-- {
		s := m.state.Load()
		if s != 1 || n == 0 {
			return s
		}
		CPURelax(1)
	}
}

func (m *cbMutex) lockContended() {
	s := m.spin()
	if s == 0 && m.state.CompareAndSwap(0, 1) {
		return
	}
	for {
		// Mark contended. If it was unlocked we now hold it (as 2,
		// which at worst costs one needless wake in Unlock).
		if s != 2 && m.state.Swap(2) == 0 {
			return
		}
		futex.Wait(&m.state, 2, nil)
		s = m.spin()
	}
}

func (m *cbMutex) Unlock() {
	if m.state.Swap(0) == 2 {
		futex.Wake(&m.state, 1)
	}
}

// cbCond is Rust std's Linux futex condvar: a sequence word. A waiter reads
// it before unlocking the mutex and sleeps only while it is unchanged;
// NotifyOne bumps it before waking. A notify after the waiter's read changes
// the word, so the kernel's comparison refuses the sleep: nothing is lost.
// It may wake spuriously; crossbeam's loop expects that.
type cbCond struct {
	seq atomic.Int32
}

// Wait unlocks m, waits for a notify (until deadline if timed), relocks m.
func (c *cbCond) Wait(m *cbMutex, timed bool, deadline time.Time) {
	v := c.seq.Load()
	m.Unlock()
	if timed {
		if ts, ok := monoAbs(deadline); ok {
			futex.WaitAbs(&c.seq, v, &ts)
		} else {
			futex.WaitAbs(&c.seq, v, nil)
		}
	} else {
		futex.WaitAbs(&c.seq, v, (*unix.Timespec)(nil))
	}
	m.Lock()
}

func (c *cbCond) NotifyOne() {
	c.seq.Add(1)
	futex.Wake(&c.seq, 1)
}
