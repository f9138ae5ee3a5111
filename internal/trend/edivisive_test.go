package trend

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/parkbench/parkbench/internal/longtest"
)

// bruteQ is Q(tau) straight from its definition.
func bruteQ(x []float64, t int) float64 {
	n := len(x)
	var between, left, right float64
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			d := math.Abs(x[i] - x[j])
			switch {
			case j < t:
				left += d
			case i >= t:
				right += d
			default:
				between += d
			}
		}
	}
	a, b := float64(t), float64(n-t)
	return a * b / float64(n) * (2*between/(a*b) - left/(a*(a-1)/2) - right/(b*(b-1)/2))
}

func TestBestSplitMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for range 50 {
		n := 6 + rng.IntN(30)
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		tau, q := bestSplit(x, 3)
		for t2 := 3; t2 <= n-3; t2++ {
			if v := bruteQ(x, t2); v > q+1e-9 {
				t.Fatalf("n=%d: split %d has Q %v > the best found %v at %d", n, t2, v, q, tau)
			}
		}
		if math.Abs(bruteQ(x, tau)-q) > 1e-9 {
			t.Fatalf("Q(%d) = %v, brute %v", tau, q, bruteQ(x, tau))
		}
	}
}

// series is n points around 100 with 2% Gaussian noise, times 1+shift
// from index at on.
func series(rng *rand.Rand, n, at int, shift float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = 100 * (1 + 0.02*rng.NormFloat64())
		if i >= at {
			x[i] *= 1 + shift
		}
	}
	return x
}

// TestErrorRates measures the detector on synthetic series of 20 runs with
// 2% noise: without a shift it may flag a series about P of the time
// (minimum change off, so only the test stands between noise and a
// change point); a +10% step (5 noise widths) is found at its place in at
// least 95% of series; the rates are logged for docs/gate.md.
func TestErrorRates(t *testing.T) {
	longtest.Skip(t)
	const n = 20
	runs := 400
	if testing.Short() || longtest.Race {
		runs = 100
	}
	o := DefaultOptions
	rng := rand.New(rand.NewPCG(2, 2))
	noMin := o
	noMin.MinChange = 0
	falsePos := 0
	for range runs {
		if len(Detect(series(rng, n, n, 0), noMin, rng)) > 0 {
			falsePos++
		}
	}
	t.Logf("no shift, no minimum change: %d of %d series flagged (designed about %.0f%%)", falsePos, runs, 100*o.P)
	if falsePos > runs*25/1000+1 {
		t.Errorf("no shift: %d of %d series flagged, designed about 1%%", falsePos, runs)
	}
	withMin := 0
	for range runs {
		if len(Detect(series(rng, n, n, 0), o, rng)) > 0 {
			withMin++
		}
	}
	t.Logf("no shift, 5%% minimum change: %d of %d series flagged", withMin, runs)
	for _, c := range []struct {
		shift float64
		want  int // per mille found at the right place, at least
	}{{0.10, 950}, {0.05, 0}} {
		found, placed := 0, 0
		for range runs {
			cps := Detect(series(rng, n, 10, c.shift), o, rng)
			if len(cps) > 0 {
				found++
			}
			for _, cp := range cps {
				if cp.Index >= 9 && cp.Index <= 11 {
					placed++
					break
				}
			}
		}
		t.Logf("+%.0f%% at run 10 of 20: found in %d of %d series, at 10±1 in %d", 100*c.shift, found, runs, placed)
		if placed*1000 < c.want*runs {
			t.Errorf("+%.0f%%: placed in %d of %d series, want at least %d per mille", 100*c.shift, placed, runs, c.want)
		}
	}
}

// TestOneOutlier: a single wild run is not a change point (a segment needs
// MinSegment runs), the failure Otava's users reported (apache/otava #150).
//
// Under -short, 50 series: each costs about 1 000 permutation scans, 8 s for
// the 200 under the race detector; .ci/run's long tests step runs the 200
// (docs/reliability.md, "Long tests"). The bound is the same 5%.
func TestOneOutlier(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	runs := 200
	if longtest.Short() {
		runs = 50
	}
	flagged := 0
	for range runs {
		x := series(rng, 20, 20, 0)
		x[12] *= 1.5
		if len(Detect(x, DefaultOptions, rng)) > 0 {
			flagged++
		}
	}
	if flagged*20 > runs {
		t.Errorf("one outlier: %d of %d series flagged", flagged, runs)
	}
}
