package cref

import (
	"testing"
)

// TestRound runs a few round trips of each mode and checks the structure
// of the result (no timing thresholds).
func TestRound(t *testing.T) {
	if err := Available(); err != nil {
		t.Skip(err)
	}
	for _, mode := range []Mode{Futex, Spin} {
		p, err := Open(mode, [2]int{-1, -1}, 100, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		for round := 0; round < 2; round++ {
			r := p.Round(50)
			if len(r.Samples) != 100 {
				t.Fatalf("mode %d: %d samples, want 100", mode, len(r.Samples))
			}
			for i, s := range r.Samples {
				if s <= 0 {
					t.Fatalf("mode %d: sample %d = %d, want > 0", mode, i, s)
				}
			}
			if r.CPUSamples == 0 || r.SameCPU > r.CPUSamples {
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
	for _, mode := range []Mode{Futex, Spin} {
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
