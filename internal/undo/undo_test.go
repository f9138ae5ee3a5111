package undo

import (
	"slices"
	"testing"
)

// Each listed change is undone once, by whichever of its own path and Run
// comes first; Run undoes the rest, the last pushed first.
func TestPushRun(t *testing.T) {
	var got []string
	a := Push(func() { got = append(got, "a") })
	Push(func() { got = append(got, "b") })
	c := Push(func() { got = append(got, "c") })
	c()
	if Pending() != 2 {
		t.Fatalf("%d pending after c's own undo, want 2", Pending())
	}
	Run()
	a() // already undone by Run: nothing
	c()
	Run()
	if want := []string{"c", "b", "a"}; !slices.Equal(got, want) {
		t.Fatalf("undone %v, want %v", got, want)
	}
	if Pending() != 0 {
		t.Fatalf("%d pending after Run", Pending())
	}
}
