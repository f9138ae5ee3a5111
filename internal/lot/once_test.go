package lot

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Ports of parking_lot src/once.rs's tests. Rust's catch_unwind is a
// deferred recover here.

func TestOnceSmoke(t *testing.T) {
	participant(t)
	var o Once
	a := 0
	o.CallOnce(func() { a++ })
	if a != 1 {
		t.Fatalf("a %d after first call", a)
	}
	o.CallOnce(func() { a++ })
	if a != 1 {
		t.Fatalf("a %d after second call", a)
	}
}

// upstream stampede_once: 10 threads and the test race to run it.
func TestOnceStampede(t *testing.T) {
	participant(t)
	var o Once
	var run atomic.Bool
	f := func() {
		if run.Swap(true) {
			t.Error("ran twice")
		}
	}
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		goThread(t, &wg, func() {
			for j := 0; j < 4; j++ {
				threadYield()
			}
			o.CallOnce(f)
			if !run.Load() {
				t.Error("CallOnce returned before the run finished")
			}
		})
	}
	o.CallOnce(f)
	if !run.Load() {
		t.Error("CallOnce returned before the run finished")
	}
	waitTimeout(t, &wg, "stampede")
	if numParked(ptrOf(&o)) != 0 {
		t.Error("threads still parked")
	}
}

// catchPanic reports whether f panicked.
func catchPanic(f func()) (panicked bool) {
	defer func() {
		if recover() != nil {
			panicked = true
		}
	}()
	f()
	return false
}

// upstream poison_bad.
func TestOncePoisonBad(t *testing.T) {
	participant(t)
	var o Once
	// poison the once
	if !catchPanic(func() { o.CallOnce(func() { panic("boom") }) }) {
		t.Fatal("the panic did not propagate")
	}
	if o.State() != OncePoisoned {
		t.Fatalf("state %v, want Poisoned", o.State())
	}
	// poisoning propagates
	if !catchPanic(func() { o.CallOnce(func() {}) }) {
		t.Fatal("CallOnce on a poisoned Once did not panic")
	}
	// we can subvert poisoning, however
	called := false
	o.CallOnceForce(func(s OnceState) {
		called = true
		if !s.Poisoned() {
			t.Errorf("state %v, want Poisoned", s)
		}
	})
	if !called {
		t.Fatal("CallOnceForce did not run")
	}
	// once any success happens, we stop propagating the poison
	o.CallOnce(func() {})
	if !o.State().Done() {
		t.Fatalf("state %v, want Done", o.State())
	}
}

// upstream wait_for_force_to_finish: a CallOnce waits for a running
// CallOnceForce on a poisoned Once and does not run.
func TestOnceWaitForForceToFinish(t *testing.T) {
	participant(t)
	var o Once
	if !catchPanic(func() { o.CallOnce(func() { panic("boom") }) }) {
		t.Fatal("the panic did not propagate")
	}
	started := make(chan struct{})
	release := make(chan struct{})
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		o.CallOnceForce(func(s OnceState) {
			if !s.Poisoned() {
				t.Errorf("state %v, want Poisoned", s)
			}
			close(started)
			<-release
		})
	})
	<-started
	goThread(t, &wg, func() {
		called := false
		o.CallOnce(func() { called = true })
		if called {
			t.Error("CallOnce ran after a successful force")
		}
	})
	until(t, "second caller parked", func() bool { return numParked(ptrOf(&o)) == 1 })
	close(release)
	waitTimeout(t, &wg, "force and waiter")
}

// A panic while others wait wakes them all (the poisoned ones panic, a
// forced one runs), leaves nothing parked and the Once usable.
func TestOncePanicWakesWaiters(t *testing.T) {
	participant(t)
	var o Once
	started := make(chan struct{})
	release := make(chan struct{})
	var wg sync.WaitGroup
	goThread(t, &wg, func() {
		if !catchPanic(func() {
			o.CallOnce(func() { close(started); <-release; panic("boom") })
		}) {
			t.Error("the panic did not propagate")
		}
	})
	<-started
	var poisoned atomic.Int32
	for i := 0; i < 3; i++ {
		goThread(t, &wg, func() {
			if catchPanic(func() { o.CallOnce(func() {}) }) {
				poisoned.Add(1)
			}
		})
	}
	until(t, "waiters parked", func() bool { return numParked(ptrOf(&o)) == 3 })
	close(release)
	waitTimeout(t, &wg, "waiters")
	if poisoned.Load() != 3 {
		t.Errorf("%d waiters saw the poison, want 3", poisoned.Load())
	}
	if numParked(ptrOf(&o)) != 0 {
		t.Error("threads still parked")
	}
	ran := false
	o.CallOnceForce(func(OnceState) { ran = true })
	if !ran || !o.State().Done() {
		t.Fatal("Once not usable after the panic")
	}
}

// upstream test_once_debug.
func TestOnceString(t *testing.T) {
	var o Once
	if s := o.String(); s != "Once { state: New }" {
		t.Errorf("String %q", s)
	}
}

// upstream new_completed_is_done and new_default_is_new.
func TestOnceNewCompleted(t *testing.T) {
	o := NewCompletedOnce()
	if o.State() != OnceDone || !o.State().Done() || o.State().Poisoned() {
		t.Fatalf("state %v", o.State())
	}
	called := false
	o.CallOnce(func() { called = true })
	if called {
		t.Fatal("a completed Once ran")
	}
	var n Once
	n.CallOnce(func() { called = true })
	if !called {
		t.Fatal("a new Once did not run")
	}
}
