package verdict

import "testing"

func TestCell(t *testing.T) {
	for _, c := range []struct {
		v        Verdict
		text, md string
	}{
		{Slower, "SLOWER", "**slower** ❌"},
		{Faster, "faster", "**faster** ✅"},
		{Same, "same", "same"},
		{NoChange, "no change", "no change"},
		{Unknown, "unknown", "unknown"},
		{NotCompared, "not compared", "not compared"},
	} {
		if got := c.v.Cell(false); got != c.text {
			t.Errorf("%q text cell %q, want %q", c.v, got, c.text)
		}
		if got := c.v.Cell(true); got != c.md {
			t.Errorf("%q markdown cell %q, want %q", c.v, got, c.md)
		}
	}
}

func TestCountTally(t *testing.T) {
	rows := []Verdict{Slower, NoChange, Slower, NotCompared}
	count := func(v Verdict) int { return Count(rows, v, func(r Verdict) Verdict { return r }) }
	if got := Tally(count, []Verdict{Slower, Faster, NoChange}, []Verdict{NotCompared, Unknown}); got != "2 slower, 0 faster, 1 no change, 1 not compared" {
		t.Errorf("Tally = %q", got)
	}
	if got := Tally(count, nil, []Verdict{Slower, Faster}); got != "2 slower" {
		t.Errorf("Tally of the non-zero only = %q", got)
	}
}

// MinP is 2 / C(n1+n2, n1) capped at 1, and 1 when a side is empty.
func TestMinP(t *testing.T) {
	for _, c := range []struct {
		n1, n2 int
		p      float64
	}{{3, 3, 0.1}, {5, 5, 2.0 / 252}, {3, 5, 2.0 / 56}, {1, 1, 1}, {0, 5, 1}, {5, 0, 1}, {0, 0, 1}} {
		if got := MinP(c.n1, c.n2); got < c.p-1e-12 || got > c.p+1e-12 {
			t.Errorf("MinP(%d, %d) = %v, want %v", c.n1, c.n2, got, c.p)
		}
	}
}
