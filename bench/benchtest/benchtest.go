// Package benchtest checks a parker against the contract parkbench's
// experiments rely on, from a Go test:
//
//	func TestMine(t *testing.T) { benchtest.Conformance(t, func() bench.Parker { return newMine() }) }
//
// It is the check bench.Main runs before it measures a parker: Unpark
// before Park leaves a token that Park consumes at once; tokens do not
// accumulate; ParkDeadline returns false, not before its deadline, when no
// token comes; and a ping-pong of 2000 round trips between two threads,
// each waking the other, loses no wakeup. Nothing is timed beyond "not
// before the deadline": a step still blocked after 5 s fails as a lost
// wakeup or a hang.
package benchtest

import (
	"testing"

	"github.com/parkbench/parkbench/bench"
	"github.com/parkbench/parkbench/internal/parkers"
)

// Conformance fails t when the parkers newParker makes break the token
// contract (bench.Parker). Each parker is made on the thread that parks
// on it. A failed check leaves the blocked thread behind: the test binary
// should end soon after.
func Conformance(t testing.TB, newParker func() bench.Parker) {
	t.Helper()
	newTok := func() parkers.TokenParker { return newParker() }
	if err := parkers.CheckToken(newTok, parkers.ConformCycles, parkers.ConformLimit); err != nil {
		t.Fatalf("parker conformance: %v", err)
	}
}
