//go:build linux

package parkers

import (
	"math"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// library/std/src/thread/tests.rs's park tests, ported to the std futex
// parker.

func TestStdParkUnparkBefore(t *testing.T) {
	p := newStd()
	wait(t, onThread(func() {
		for i := 0; i < 10; i++ {
			p.Unpark()
			p.Park()
		}
	}), "test_park_unpark_before")
}

func TestStdParkUnparkCalledOtherThread(t *testing.T) {
	p := newStd()
	for i := 0; i < 10; i++ {
		waker := onThread(func() {
			time.Sleep(50 * time.Millisecond)
			p.Unpark()
		})
		wait(t, onThread(p.Park), "test_park_unpark_called_other_thread")
		wait(t, waker, "unparker")
	}
}

func TestStdParkTimeoutUnparkBefore(t *testing.T) {
	p := newStd()
	wait(t, onThread(func() {
		for i := 0; i < 10; i++ {
			p.Unpark()
			p.ParkDeadline(time.Now().Add(time.Duration(math.MaxUint32) * time.Millisecond))
		}
	}), "test_park_timeout_unpark_before")
}

// std's park_timeout cannot tell a timeout from a spurious wakeup, so
// upstream only checks that it returns; here ParkDeadline also reports
// that no token was consumed.
func TestStdParkTimeoutUnparkNotCalled(t *testing.T) {
	p := newStd()
	wait(t, onThread(func() {
		for i := 0; i < 10; i++ {
			if p.ParkDeadline(time.Now().Add(10 * time.Millisecond)) {
				panic("consumed a token nobody gave")
			}
		}
	}), "test_park_timeout_unpark_not_called")
}

func TestStdParkTimeoutUnparkCalledOtherThread(t *testing.T) {
	p := newStd()
	for i := 0; i < 10; i++ {
		waker := onThread(func() {
			time.Sleep(50 * time.Millisecond)
			p.Unpark()
		})
		wait(t, onThread(func() {
			p.ParkDeadline(time.Now().Add(time.Duration(math.MaxUint32) * time.Millisecond))
		}), "test_park_timeout_unpark_called_other_thread")
		wait(t, waker, "unparker")
	}
}

// The state machine's values, as std's: PARKED is -1, so EMPTY - 1.
func TestStdStates(t *testing.T) {
	p := &stdParker{}
	p.Unpark()
	if p.state.Load() != stdNotified {
		t.Fatal("unpark did not leave NOTIFIED")
	}
	p.Park()
	if p.state.Load() != stdEmpty {
		t.Fatal("park did not consume NOTIFIED -> EMPTY")
	}
	parked := stdParked
	if uint32(parked) != math.MaxUint32 {
		t.Fatal("PARKED is not u32::MAX")
	}
}

// The monotonic mapping errs late, never early: monoAbs(now) is not before
// the kernel's CLOCK_MONOTONIC read just before it.
func TestMonoAbsNotEarly(t *testing.T) {
	for i := 0; i < 1000; i++ {
		var k unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &k)
		ts, ok := monoAbs(time.Now())
		if !ok || ts.Nano() < k.Nano() {
			t.Fatalf("monoAbs(now) = %d, kernel said %d before it", ts.Nano(), k.Nano())
		}
	}
}
