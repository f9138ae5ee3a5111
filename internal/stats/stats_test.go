package stats

import (
	"math"
	"slices"
	"testing"
)

var nan = math.NaN()

// same is equality that lets NaN equal NaN.
func same(a, b float64) bool { return a == b || (a != a && b != b) }

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		name string
		in   []float64
		want float64
	}{
		{"none", nil, nan},
		{"empty", []float64{}, nan},
		{"one", []float64{7}, 7},
		{"odd", []float64{5, 1, 3}, 3},
		{"even: mean of the middle two", []float64{5, 1, 3, 2}, 2.5},
		{"ties", []float64{2, 2, 9, 2}, 2},
		{"negative", []float64{-4, -1, -9}, -4},
		{"NaN gives NaN", []float64{1, nan, 3}, nan},
		{"infinity is a value", []float64{1, math.Inf(1), 3}, 3},
	} {
		in := slices.Clone(c.in)
		if got := Median(in); !same(got, c.want) {
			t.Errorf("%s: Median(%v) = %v, want %v", c.name, c.in, got, c.want)
		}
		if !slices.EqualFunc(in, c.in, same) {
			t.Errorf("%s: Median changed its input to %v", c.name, in)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{40, 10, 30, 20}
	for _, c := range []struct {
		in   []float64
		q    float64
		want float64
	}{
		{nil, 0.5, nan},
		{[]float64{7}, 0.25, 7},
		{xs, 0, 10},
		{xs, 1, 40},
		{xs, 0.5, 25},
		{xs, 0.25, 17.5},
		{xs, 0.75, 32.5},
		{[]float64{3, 1, 2}, 0.5, 2},
		{[]float64{3, nan, 2}, 0.5, nan},
	} {
		if got := Quantile(c.in, c.q); !same(got, c.want) {
			t.Errorf("Quantile(%v, %v) = %v, want %v", c.in, c.q, got, c.want)
		}
	}
	for _, in := range [][]float64{{1}, {4, 1}, {5, 1, 3}, {5, 1, 3, 2}, {9, 1, 1, 4, 7, 2}} {
		if Quantile(in, 0.5) != Median(in) {
			t.Errorf("Quantile(%v, 0.5) = %v, Median = %v", in, Quantile(in, 0.5), Median(in))
		}
	}
}

func TestNearestRank(t *testing.T) {
	s := []int64{10, 20, 30, 40}
	for _, c := range []struct {
		q    float64
		want float64
	}{{0.5, 20}, {0.25, 10}, {0.26, 20}, {0.99, 40}, {1, 40}, {0.001, 10}} {
		if got := NearestRank(s, c.q); got != c.want {
			t.Errorf("NearestRank(%v, %v) = %v, want %v", s, c.q, got, c.want)
		}
	}
	// 0.99 x 300 is 297 in exact arithmetic; the rank must be 297.
	h := make([]float64, 300)
	for i := range h {
		h[i] = float64(i + 1)
	}
	if got := NearestRank(h, 0.99); got != 297 {
		t.Errorf("NearestRank p99 of 1..300 = %v, want 297", got)
	}
	if got := NearestRank([]float64{3}, 0.5); got != 3 {
		t.Errorf("NearestRank of one = %v", got)
	}
	if got := NearestRank([]int64(nil), 0.5); !math.IsNaN(got) {
		t.Errorf("NearestRank of none = %v, want NaN", got)
	}
	f := []float64{1, 2, nan}
	slices.Sort(f)
	if got := NearestRank(f, 0.99); !math.IsNaN(got) {
		t.Errorf("NearestRank with a NaN = %v, want NaN", got)
	}
}

func TestMeanSEM(t *testing.T) {
	for _, c := range []struct {
		in        []float64
		mean, sem float64
	}{
		{nil, nan, nan},
		{[]float64{5}, 5, nan},
		// s^2 = 4, n = 3: sem = sqrt(4/3).
		{[]float64{2, 4, 6}, 4, math.Sqrt(4.0 / 3)},
		{[]float64{3, 3}, 3, 0},
		{[]float64{1, nan}, nan, nan},
	} {
		m, s := MeanSEM(c.in)
		if !same(m, c.mean) || !same(s, c.sem) {
			t.Errorf("MeanSEM(%v) = %v, %v, want %v, %v", c.in, m, s, c.mean, c.sem)
		}
		if !same(Mean(c.in), c.mean) {
			t.Errorf("Mean(%v) = %v, want %v", c.in, Mean(c.in), c.mean)
		}
	}
}

func TestGeomean(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, nan},
		{[]float64{4}, 4},
		{[]float64{1, 4}, 2},
		{[]float64{2, 8, 4}, 4},
		{[]float64{1, 0}, nan},
		{[]float64{1, -2}, nan},
		{[]float64{1, nan}, nan},
	} {
		if got := Geomean(c.in); !same(got, c.want) && math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Geomean(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}
