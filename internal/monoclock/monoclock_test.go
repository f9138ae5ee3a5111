package monoclock

import (
	"testing"
	"time"
)

// Nanotime is monotonic and keeps pace with Go's clock over a sleep.
func TestNanotime(t *testing.T) {
	a, ga := Nanotime(), GoClockNs()
	time.Sleep(20 * time.Millisecond)
	b, gb := Nanotime(), GoClockNs()
	if b <= a {
		t.Fatalf("Nanotime went from %d to %d over a 20 ms sleep", a, b)
	}
	d, gd := time.Duration(b-a), time.Duration(gb-ga)
	// Go's clock may step coarsely (Windows: the timer tick), so the
	// agreement asked for is loose.
	if d < 15*time.Millisecond || d > gd+50*time.Millisecond {
		t.Errorf("Nanotime measured %v over a 20 ms sleep, Go's clock %v", d, gd)
	}
}

// The experiments' clock resolves a microsecond (the wakes they time are
// several); Go's own clock is reported, not asserted: under Wine it steps
// by milliseconds.
func TestStep(t *testing.T) {
	s := Step(Nanotime)
	t.Logf("%s: step %v; Go's monotonic clock: step %v", Source, s, Step(GoClockNs))
	if s <= 0 || s > time.Microsecond {
		t.Errorf("%s advances in steps of %v, want (0, 1µs]", Source, s)
	}
}

// The experiments read the clock inside measured loops that must not
// allocate.
func TestNanotimeAllocFree(t *testing.T) {
	if n := testing.AllocsPerRun(10000, func() { Nanotime() }); n != 0 {
		t.Errorf("Nanotime: %v allocations per call, want 0", n)
	}
}

// An interval shorter than the clock's step is below its resolution; an
// unknown resolution flags nothing.
func TestBelowResolution(t *testing.T) {
	for _, c := range []struct {
		ns   float64
		res  time.Duration
		want bool
	}{
		{0, 100, true}, {1, 100, true}, {99.9, 100, true}, {100, 100, false}, {1400, 100, false},
		{0, 0, false}, {5, -1, false},
	} {
		if got := BelowResolution(c.ns, c.res); got != c.want {
			t.Errorf("BelowResolution(%v, %v) = %v, want %v", c.ns, c.res, got, c.want)
		}
	}
	if r := Resolution(); r <= 0 || r != Resolution() {
		t.Errorf("Resolution() = %v, then %v: want one positive figure per process", r, Resolution())
	}
	// A clock that steps by 100 (QueryPerformanceCounter's 100 ns) has a
	// resolution of 100, however cheap a read; one that moves on every
	// read counts nanoseconds.
	var coarse, fine int64
	if r := resolution(func() int64 { coarse += 7; return coarse / 700 * 100 }); r != 100 {
		t.Errorf("a clock stepping by 100: resolution %v, want 100ns", r)
	}
	if r := resolution(func() int64 { fine += 20; return fine }); r != time.Nanosecond {
		t.Errorf("a clock that moves on every read: resolution %v, want 1ns", r)
	}
}
