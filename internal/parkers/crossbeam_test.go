package parkers

import (
	"math"
	"testing"
	"time"
)

// crossbeam-utils/tests/parker.rs, ported. u32MaxWait, u32::MAX
// milliseconds, is crossbeam's "forever" in these tests.
const u32MaxWait = time.Duration(math.MaxUint32) * time.Millisecond

func TestCrossbeamParkTimeoutUnparkBefore(t *testing.T) {
	p := NewCrossbeam()
	wait(t, onThread(func() {
		for i := 0; i < 10; i++ {
			p.Unparker().Unpark()
			if !p.ParkTimeout(u32MaxWait) {
				panic("park_timeout after unpark: Timeout, want Unparked")
			}
		}
	}), "park_timeout_unpark_before")
}

func TestCrossbeamParkTimeoutUnparkNotCalled(t *testing.T) {
	p := NewCrossbeam()
	wait(t, onThread(func() {
		for i := 0; i < 10; i++ {
			if p.ParkTimeout(10 * time.Millisecond) {
				panic("park_timeout with no unpark: Unparked, want Timeout")
			}
		}
	}), "park_timeout_unpark_not_called")
}

func TestCrossbeamParkTimeoutUnparkCalledOtherThread(t *testing.T) {
	p := NewCrossbeam()
	for i := 0; i < 10; i++ {
		u := p.Unparker().Clone()
		waker := onThread(func() {
			time.Sleep(50 * time.Millisecond)
			u.Unpark()
		})
		wait(t, onThread(func() {
			if !p.ParkTimeout(u32MaxWait) {
				panic("park_timeout woken by another thread: Timeout, want Unparked")
			}
		}), "park_timeout_unpark_called_other_thread")
		wait(t, waker, "unparker")
	}
}

func TestCrossbeamDebug(t *testing.T) {
	p := NewCrossbeam()
	if p.String() != "Parker { .. }" || p.Unparker().String() != "Unparker { .. }" {
		t.Errorf("%v %v", p, p.Unparker())
	}
}
