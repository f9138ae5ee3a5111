package benchtest_test

import (
	"testing"
	"time"

	"github.com/parkbench/parkbench/bench"
	"github.com/parkbench/parkbench/bench/benchtest"
)

type chanToken chan struct{}

func (c chanToken) Park() { <-c }
func (c chanToken) ParkDeadline(d time.Time) bool {
	t := time.NewTimer(time.Until(d))
	defer t.Stop()
	select {
	case <-c:
		return true
	case <-t.C:
		return false
	}
}
func (c chanToken) Unpark() {
	select {
	case c <- struct{}{}:
	default:
	}
}

func TestConformanceOfAChannelParker(t *testing.T) {
	benchtest.Conformance(t, func() bench.Parker { return make(chanToken, 1) })
}

// accumulating leaves every token (a channel of many slots): the check
// must fail it.
type accumulating struct{ chanToken }

func TestConformanceFailsAccumulatingTokens(t *testing.T) {
	ft := &fakeT{TB: t}
	func() {
		defer func() { _ = recover() }()
		benchtest.Conformance(ft, func() bench.Parker { return accumulating{make(chanToken, 8)} })
	}()
	if !ft.failed {
		t.Fatal("a parker whose tokens accumulate passed")
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
}

func (f *fakeT) Helper() {}
func (f *fakeT) Fatalf(string, ...any) {
	f.failed = true
	panic("fatal")
}
