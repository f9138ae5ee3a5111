package futex

import (
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The errnos each wrapper's callers rely on, without sleeping for long.
func TestErrnos(t *testing.T) {
	var w, to atomic.Int32
	w.Store(1)
	if e := Wait(&w, 0, nil); e != unix.EAGAIN {
		t.Errorf("Wait on a word that differs: %v, want EAGAIN", e)
	}
	if e := WaitRaw(&w, 0, nil); e != unix.EAGAIN {
		t.Errorf("WaitRaw on a word that differs: %v, want EAGAIN", e)
	}
	if e := WaitAbs(&w, 0, nil); e != unix.EAGAIN {
		t.Errorf("WaitAbs on a word that differs: %v, want EAGAIN", e)
	}
	ts := unix.NsecToTimespec(int64(time.Millisecond))
	if e := Wait(&w, 1, &ts); e != unix.ETIMEDOUT {
		t.Errorf("Wait 1 ms: %v, want ETIMEDOUT", e)
	}
	var past unix.Timespec // CLOCK_MONOTONIC 0: long gone
	if e := WaitAbs(&w, 1, &past); e != unix.ETIMEDOUT {
		t.Errorf("WaitAbs with a past deadline: %v, want ETIMEDOUT", e)
	}
	if n, e := Wake(&w, WakeAll); n != 0 || e != 0 {
		t.Errorf("Wake with nobody asleep: %d, %v", n, e)
	}
	if e := WakeRaw(&w); e != 0 {
		t.Errorf("WakeRaw: %v", e)
	}
	if _, e := CmpRequeue(&w, 1, WakeAll, &to, 0); e != unix.EAGAIN {
		t.Errorf("CmpRequeue expecting another value: %v, want EAGAIN", e)
	}
	if n, e := CmpRequeue(&w, 1, WakeAll, &to, 1); n != 0 || e != 0 {
		t.Errorf("CmpRequeue with nobody asleep: %d, %v", n, e)
	}
	if !FitsTimespec(time.Hour) {
		t.Error("an hour does not fit a timespec")
	}
}

// TestWakeWakesASleeper: a thread asleep in Wait is woken by Wake (the
// store before the wake is what its loop re-checks).
func TestWakeWakesASleeper(t *testing.T) {
	var w atomic.Int32
	done := make(chan struct{})
	go func() {
		for w.Load() == 0 {
			Wait(&w, 0, nil)
		}
		close(done)
	}()
	time.Sleep(10 * time.Millisecond)
	w.Store(1)
	Wake(&w, 1)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sleeper was not woken within 10 s: a lost wakeup")
	}
}
