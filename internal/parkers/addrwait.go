package parkers

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// Darwin's two compare-and-wait APIs, beyond the study (ulock and
// os-sync): the private __ulock_wait / __ulock_wake (UL_COMPARE_AND_WAIT,
// process-private), which libc++'s atomic wait and the comment of Rust
// std's darwin.rs parker name as "Darwin's futex", and
// os_sync_wait_on_address / os_sync_wake_by_address_any, their public form
// since macOS 14.4.

// addrWaitAPI is a compare-and-wait on a 32-bit word: the shape of futex(2),
// __ulock_wait and os_sync_wait_on_address. The parker's logic is here,
// OS-independent, so that it runs on Linux (addrwait_test.go drives it with
// the real futex and with a fake) although the darwin calls never run here.
type addrWaitAPI interface {
	// wait sleeps while *addr == expect, for at most timeout (0: no
	// limit). The comparison and the sleep are atomic against wake. It
	// may return early or spuriously; the caller re-checks the word.
	wait(addr *atomic.Int32, expect int32, timeout time.Duration)
	// wake wakes one thread sleeping on addr, if any.
	wake(addr *atomic.Int32)
}

// addrWaitPoints are the chaos.Point names of one backend, built once so a
// park does not concatenate strings.
type addrWaitPoints struct {
	parkBeforeWait, untilBeforeWait, untilTimedOut, unparkBeforeWake string
}

func newAddrWaitPoints(name string) *addrWaitPoints {
	return &addrWaitPoints{
		parkBeforeWait:   name + ".park.before-wait",
		untilBeforeWait:  name + ".park-until.before-wait",
		untilTimedOut:    name + ".park-until.timed-out",
		unparkBeforeWake: name + ".unpark.before-wake",
	}
}

// addrWaitParker is parking_lot_core's linux.rs on another compare-and-wait:
// one int32, 1 = "should park", 0 = "unparked".
//
// Missed-wakeup argument (as futexParker's): the owner stores 1 before it is
// queued, so the waker's store of 0 (UnparkLock, under the queue lock) comes
// after it. The owner sleeps only through api.wait(expect 1), which compares
// the word and goes to sleep atomically with respect to api.wake (the kernel
// compares under the lock of the wait queue the wake takes: xnu's ulock and
// os_sync share one implementation, as futex does). Either the 0 is seen at
// the comparison (the wait returns at once and the loop sees 0) or the owner
// is already queued when the wake runs. The loop re-checks the word after
// every return, so early and spurious returns are harmless.
type addrWaitParker struct {
	word atomic.Int32
	api  addrWaitAPI
	pt   *addrWaitPoints
	// maxWait bounds one wait (0: none): __ulock_wait takes a uint32 of
	// microseconds; a longer remaining time waits in slices.
	maxWait time.Duration

	blocked, immediate uint64 // owner-only; see WaitCounts
}

type addrWaitUnpark addrWaitParker

func newAddrWaitParker(api addrWaitAPI, pt *addrWaitPoints, maxWait time.Duration) *addrWaitParker {
	return &addrWaitParker{api: api, pt: pt, maxWait: maxWait}
}

func (p *addrWaitParker) PreparePark()   { p.word.Store(1) }
func (p *addrWaitParker) TimedOut() bool { return p.word.Load() != 0 }

// Park waits while the word is 1.
func (p *addrWaitParker) Park() {
	if p.word.Load() == 0 {
		p.immediate++
		return
	}
	p.blocked++
	for p.word.Load() != 0 {
		chaos.Point(p.pt.parkBeforeWait)
		p.api.wait(&p.word, 1, 0)
	}
}

// ParkUntil waits while the word is 1 and the deadline has not passed,
// recomputing the remaining time from the monotonic clock every turn as
// linux.rs does.
func (p *addrWaitParker) ParkUntil(deadline time.Time) bool {
	if p.word.Load() == 0 {
		p.immediate++
		return true
	}
	p.blocked++
	for p.word.Load() != 0 {
		rem := time.Until(deadline)
		if rem <= 0 {
			chaos.Point(p.pt.untilTimedOut)
			return false
		}
		if p.maxWait > 0 && rem > p.maxWait {
			rem = p.maxWait
		}
		chaos.Point(p.pt.untilBeforeWait)
		p.api.wait(&p.word, 1, rem)
	}
	return true
}

// UnparkLock stores 0 under the queue lock; the wake comes after it.
func (p *addrWaitParker) UnparkLock() UnparkHandle {
	p.word.Store(0)
	return (*addrWaitUnpark)(p)
}

// Unpark wakes one waiter on the word. The handle keeps the word reachable,
// so it cannot be freed under the wake (upstream tolerates the EFAULT that
// a freed ThreadData would give).
func (h *addrWaitUnpark) Unpark() {
	chaos.Point(h.pt.unparkBeforeWake)
	h.api.wake(&h.word)
}

// WaitCounts implements WaitCounter: per park call, already unparked
// (immediate) or not (blocked). Neither darwin API says whether a wait
// slept: a value mismatch returns success at once.
func (p *addrWaitParker) WaitCounts() (blocked, immediate uint64) { return p.blocked, p.immediate }
