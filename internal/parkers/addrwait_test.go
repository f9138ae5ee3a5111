package parkers

import (
	"sync/atomic"
	"testing"
	"time"
)

// The darwin compare-and-wait parker (ulock, os-sync) is OS-independent
// above its two calls; here it runs on fakes of them, through the whole
// conformance suite (see extraThreadBackends), so its logic executes on
// Linux although the darwin calls never do.

// fakeAddrWait is a compare-and-wait for one waiter: a one-slot channel
// keeps a wake that comes between the comparison and the sleep, which is
// what the kernel's atomic compare-and-sleep guarantees. A stale wake from
// an earlier park makes a later wait return early, as a spurious wakeup;
// every fifth wait also returns at once, to exercise the callers' loops.
type fakeAddrWait struct {
	woken chan struct{}
	timer *time.Timer
	waits atomic.Int64
}

func newFakeAddrWait() *fakeAddrWait {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &fakeAddrWait{woken: make(chan struct{}, 1), timer: t}
}

func (f *fakeAddrWait) wait(addr *atomic.Int32, expect int32, timeout time.Duration) {
	if addr.Load() != expect || f.waits.Add(1)%5 == 0 {
		return
	}
	if timeout <= 0 {
		<-f.woken
		return
	}
	f.timer.Reset(timeout)
	defer f.timer.Stop()
	select {
	case <-f.woken:
	case <-f.timer.C:
	}
}

func (f *fakeAddrWait) wake(*atomic.Int32) {
	select {
	case f.woken <- struct{}{}:
	default:
	}
}

var fakeAddrWaitPoints = newAddrWaitPoints("fake-addrwait")

func init() {
	extraThreadBackends = append(extraThreadBackends, Backend{
		Name: "fake-ulock", Sleeps: true,
		NewThread: func() ThreadParker {
			// A 3 ms slice bound, so ParkUntil's slicing (ulock's
			// uint32 of µs) runs too.
			return newAddrWaitParker(newFakeAddrWait(), fakeAddrWaitPoints, 3*time.Millisecond)
		},
	})
}

// sliceRecorder returns from every wait at once and records the longest
// timeout it was given.
type sliceRecorder struct {
	waits     int
	longest   time.Duration
	unbounded bool // a wait without a timeout
}

func (r *sliceRecorder) wait(_ *atomic.Int32, _ int32, timeout time.Duration) {
	r.waits++
	r.unbounded = r.unbounded || timeout <= 0
	r.longest = max(r.longest, timeout)
}

func (r *sliceRecorder) wake(*atomic.Int32) {}

// TestAddrWaitSlices: a ParkUntil longer than maxWait never hands the API a
// longer (or unbounded) wait, and still times out only at its deadline.
func TestAddrWaitSlices(t *testing.T) {
	r := &sliceRecorder{}
	p := newAddrWaitParker(r, fakeAddrWaitPoints, time.Millisecond)
	wait(t, onThread(func() {
		p.PreparePark()
		deadline := time.Now().Add(5 * time.Millisecond)
		if p.ParkUntil(deadline) {
			panic("ParkUntil without unpark reported unparked")
		}
		if time.Now().Before(deadline) {
			panic("ParkUntil returned before its deadline")
		}
	}), "sliced ParkUntil")
	if r.waits == 0 || r.unbounded || r.longest > time.Millisecond {
		t.Fatalf("%d waits, longest %v, unbounded %v: want waits of at most the 1 ms slice", r.waits, r.longest, r.unbounded)
	}
}
