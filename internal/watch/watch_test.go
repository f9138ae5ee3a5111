//go:build (linux || darwin) && cgo && !pbnowatch

package watch

import (
	"runtime"
	"testing"
)

// The scanner's rule, on the test thread's own slot: a stretch that has
// not moved for `looks` looks is reported, once; a tick, a moving loop
// count, or leaving the stretch is progress.
func TestScan(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	hung := func(looks int) (string, bool) {
		impl, lib, op, h := scan(looks)
		return impl + " " + lib + " " + op, h
	}
	none := func(what string, looks, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if s, h := hung(looks); h {
				t.Fatalf("%s: look %d reported %q", what, i+1, s)
			}
		}
	}

	// A call that does not return: reported at the third look (the first
	// records its seq, then two stalled looks), once.
	testEnter(testOpPark)
	none("a call, first looks", 2, 2)
	if s, h := hung(2); !h || s != "test-impl test-lib park" {
		t.Fatalf("a stalled call: %q %v; want test-impl test-lib park", s, h)
	}
	none("a call already reported", 2, 5)
	testLeave()
	none("out of the call", 2, 5)

	// A loop that ticks between looks is moving; one that stops is not.
	testEnter(testOpLoop)
	for i := 0; i < 5; i++ {
		testTick()
		none("a ticking loop", 2, 1)
	}
	// The last tick's look recorded its seq: one stalled look, then the
	// second reports it.
	none("a loop that stopped, first look", 2, 1)
	if s, h := hung(2); !h || s != "test-impl test-lib lock's C-thread loop (lock, unlock)" {
		t.Fatalf("a stalled loop: %q %v", s, h)
	}
	testLeave()

	// A loop the library owns (ABI version 2) bumps the slot's progress
	// word itself: it moves when the word does.
	testEnter(testOpLoop)
	for i := 0; i < 5; i++ {
		testCountAdd()
		none("a counting loop", 2, 1)
	}
	none("a counting loop that stopped, first look", 2, 1)
	if _, h := hung(2); !h {
		t.Fatal("a counting loop that stopped was not reported")
	}
	testLeave()

	// A loop the library owns that goes on counting after its stop flag
	// was set: from then on its count is no progress, and it is reported
	// as a loop that did not return when told to.
	testEnter(testOpOwnLock)
	testCountAdd()
	none("a counting loop", 2, 1)
	testToldStop()
	testCountAdd()
	none("a loop told to stop, first look", 2, 1)
	testCountAdd()
	if s, h := hung(2); !h || s != "test-impl test-lib its own lock loop, which did not return when the stop flag was set," {
		t.Fatalf("a loop that ignores its stop flag: %q %v", s, h)
	}
	testLeave()
	// The next stretch on the slot is not marked: its seq is another.
	testEnter(testOpOwnLock)
	for i := 0; i < 4; i++ {
		testCountAdd()
		none("the next stretch", 2, 1)
	}
	testLeave()
	none("after the loops", 2, 3)
}

// The crash note passes every fault it does not name on to Go's handler:
// a nil dereference in Go code is still a panic that recover takes.
func TestCrashNoteKeepsGoPanics(t *testing.T) {
	installCrashNote()
	var p *int
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	_ = *p //lint:ignore SA5011 the nil dereference is the test
}
