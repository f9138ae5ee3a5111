package cref

import (
	"testing"
	"time"
)

// TestLockRun runs the C lock loop briefly in every mode and pattern and
// checks the result's structure (no timing thresholds).
func TestLockRun(t *testing.T) {
	if err := LockAvailable(); err != nil {
		t.Skip(err)
	}
	for _, mode := range []LockMode{LockPthread, LockSpin, LockPthreadPI} {
		for _, pat := range []LockPattern{PatternLoop, PatternHoldSleep, PatternSkew} {
			cfg := LockRunConfig{Mode: mode, Pattern: pat, Threads: 3, Locks: 2, WorkIn: 5, WorkBetween: 5,
				HoldSleep: 20 * time.Microsecond, Duration: 20 * time.Millisecond, SampleEvery: 64, Seed: 7}
			if pat == PatternSkew {
				cfg.Threads = 2
			}
			r, err := LockRun(cfg)
			if err != nil {
				t.Fatalf("mode %d pattern %d: %v", mode, pat, err)
			}
			var sum, waits int64
			for _, c := range r.Counts {
				sum += c
			}
			for _, w := range r.Waits {
				if w[0] < 0 || w[1] < 1 {
					t.Fatalf("bad wait bucket %v", w)
				}
				waits += w[1]
			}
			if len(r.Counts) != cfg.Threads || sum != r.Locked || r.Checked != sum || r.WallNs <= 0 {
				t.Fatalf("mode %d pattern %d: counts %v (sum %d) locked %d wall %d", mode, pat, r.Counts, sum, r.Locked, r.WallNs)
			}
			if sum > 0 && waits == 0 {
				t.Errorf("mode %d pattern %d: %d acquisitions, no sampled wait", mode, pat, sum)
			}
		}
	}
	// One lock, no work: only the timed acquisitions (numbers 0, 64, ...)
	// count under the lock.
	r, err := LockRun(LockRunConfig{Mode: LockPthread, Pattern: PatternLoop, Threads: 2, Locks: 1, Duration: 20 * time.Millisecond, SampleEvery: 64})
	if err != nil {
		t.Fatal(err)
	}
	var timed int64
	for _, c := range r.Counts {
		timed += (c + 63) / 64
	}
	if r.Checked != timed || r.Locked != timed {
		t.Errorf("no work: counts %v, checked %d, locked %d, want both %d", r.Counts, r.Checked, r.Locked, timed)
	}
	if _, err := LockRun(LockRunConfig{Threads: 0, Locks: 1, SampleEvery: 64}); err == nil {
		t.Errorf("zero threads accepted")
	}
	if _, err := LockRun(LockRunConfig{Threads: 1, Locks: 1, SampleEvery: 63}); err == nil {
		t.Errorf("a sample rate that is not a power of two accepted")
	}
}

func TestPthreadMutex(t *testing.T) {
	if err := LockAvailable(); err != nil {
		t.Skip(err)
	}
	// The default mutex and the PTHREAD_PRIO_INHERIT one.
	for _, newM := range []func() (*PthreadMutex, error){NewPthreadMutex, NewPthreadPIMutex} {
		m, err := newM()
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			m.Lock()
			//lint:ignore SA2001 the lock and unlock are what is tested
			m.Unlock()
		}
		m.Free()
	}
	if ns := LockWorkNs(1000); ns <= 0 {
		t.Errorf("work unit %v ns", ns)
	}
	if ns := CgoCallNs(1000); ns <= 0 {
		t.Errorf("cgo call %v ns", ns)
	}
	for _, mode := range []LockMode{LockSpin, LockPthreadPI} {
		if ns := LockUncontendedNs(mode, nil, 1000); ns <= 0 {
			t.Errorf("uncontended mode %d: %v ns", mode, ns)
		}
	}
}

// TestRwRun runs the C rwlock loop briefly (readers only, writers only,
// both) and checks the result's structure (no timing thresholds).
func TestRwRun(t *testing.T) {
	if err := LockAvailable(); err != nil {
		t.Skip(err)
	}
	for _, rw := range [][2]int{{2, 0}, {0, 2}, {2, 1}} {
		cfg := RwRunConfig{Readers: rw[0], Writers: rw[1], WorkIn: 5, WorkBetween: 5, Duration: 20 * time.Millisecond, SampleEvery: 64}
		r, err := RwRun(cfg)
		if err != nil {
			t.Fatalf("%v: %v", rw, err)
		}
		var sum int64
		for _, c := range r.Writers {
			sum += c
		}
		if len(r.Readers) != rw[0] || len(r.Writers) != rw[1] || sum != r.Written || r.Overlaps != 0 || r.WallNs <= 0 {
			t.Fatalf("%v: %+v", rw, r)
		}
	}
	if _, err := RwRun(RwRunConfig{SampleEvery: 64}); err == nil {
		t.Errorf("no threads accepted")
	}
}

func TestPthreadRwLock(t *testing.T) {
	if err := LockAvailable(); err != nil {
		t.Skip(err)
	}
	m, err := NewPthreadRwLock()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Free()
	for i := 0; i < 100; i++ {
		m.RLock()
		m.RLock() // two readers at once
		//lint:ignore SA2001 the lock and unlock are what is tested
		m.RUnlock()
		m.RUnlock()
		m.Lock()
		//lint:ignore SA2001 the lock and unlock are what is tested
		m.Unlock()
	}
}
