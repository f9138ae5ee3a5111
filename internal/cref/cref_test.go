package cref

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestRound runs a few round trips of each mode and checks the structure
// of the result (no timing thresholds).
func TestRound(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	for _, f := range Floors() {
		mode := f.Mode
		p, err := Open(mode, [2]int{-1, -1}, 100, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			r := p.Round(50)
			if len(r.Samples) != 100 {
				t.Fatalf("mode %d: %d samples, want 100", mode, len(r.Samples))
			}
			var noSleep uint64
			for i, s := range r.Samples {
				if s < 0 { // a wait that did not sleep: ^v
					noSleep++
					s = ^s
				}
				if s <= 0 {
					t.Fatalf("mode %d: sample %d = %d, want > 0", mode, i, s)
				}
			}
			if noSleep != r.NoSleep {
				t.Fatalf("mode %d: %d samples marked no-sleep, NoSleep %d", mode, noSleep, r.NoSleep)
			}
			if runtime.GOOS == "linux" && r.CPUSamples == 0 || r.SameCPU > r.CPUSamples {
				t.Fatalf("mode %d: cpu samples %d same %d", mode, r.CPUSamples, r.SameCPU)
			}
			if mode == Spin && r.ThreadCsw < 0 {
				t.Fatalf("negative csw")
			}
		}
		p.Close()
	}
}

func TestSelfwake(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	for _, f := range Floors() {
		mode := f.Mode
		out := make([]int64, 10)
		if slept := Selfwake(mode, 100, out); slept != 0 {
			t.Fatalf("mode %d: %d waits slept", mode, slept)
		}
		for _, v := range out {
			if v <= 0 {
				t.Fatalf("mode %d: sample %d", mode, v)
			}
		}
	}
}

// TestRoundContextStops: a cancelled context ends a C round within a round
// trip (the C threads never see Go's signal handling; SIGINT during a
// 1 000 000-trip c-futex round once went unheard for 65 s).
func TestRoundContextStops(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	for _, mode := range []Mode{Futex, Spin} {
		const huge = 50_000_000 // hours of round trips: only the stop ends it
		p, err := Open(mode, [2]int{-1, -1}, huge, 0, false)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := p.RoundContext(ctx, huge)
			done <- err
		}()
		time.Sleep(50 * time.Millisecond)
		cancel()
		select {
		case err := <-done:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("mode %d: RoundContext = %v, want context.Canceled", mode, err)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("mode %d: the round did not stop within 60 s of the cancel", mode)
		}
		// A stopped pair still closes (both threads reach the barriers).
		p.Close()
	}
}

// TestForeignMode: a floor of another OS (c-ulock on Linux, c-futex on
// darwin) is refused with an error, never run.
func TestForeignMode(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	foreign := Ulock
	if runtime.GOOS == "darwin" {
		foreign = Futex
	}
	if _, err := Open(foreign, [2]int{-1, -1}, 1, 0, false); err == nil {
		t.Fatalf("Open(mode %d) on %s succeeded", foreign, runtime.GOOS)
	}
	if n := Selfwake(foreign, 1, make([]int64, 1)); n != -1 {
		t.Fatalf("Selfwake(mode %d) on %s = %d, want -1", foreign, runtime.GOOS, n)
	}
}
