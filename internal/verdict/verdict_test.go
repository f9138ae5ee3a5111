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
