// Package longtest marks the tests `go test -short` leaves out of a
// contributor's run: they run an experiment or a command end to end, or
// judge hundreds of synthetic results, and under the race detector each
// takes from ten seconds to a minute. .ci/run runs their packages without
// -short in its step "long tests" (docs/reliability.md, "Long tests"), so
// CI checks everything; the emulator runs (scripts/ci-platforms.sh), which
// pass -test.short to skip the measuring tests that an emulator cannot
// run, set PARKBENCH_LONG_TESTS=1 and keep these. Race says whether the test binary has the race detector, for
// the tests that run fewer rounds under it.
package longtest

import (
	"os"
	"testing"
)

// Env names the variable that, set to 1, runs the long tests under -short
// too.
const Env = "PARKBENCH_LONG_TESTS"

// Short reports whether the long tests are left out: -short, and
// $PARKBENCH_LONG_TESTS is not 1. A test that runs fewer rounds under
// Short (its package in .ci/run's long tests step) keeps all of them in the
// emulator runs, as Skip keeps the long tests there.
func Short() bool {
	return testing.Short() && os.Getenv(Env) != "1"
}

// Skip skips t under -short unless $PARKBENCH_LONG_TESTS is 1.
func Skip(t testing.TB) {
	t.Helper()
	if Short() {
		t.Skip("a long test: skipped under -short; .ci/run's long tests run it (docs/reliability.md, \"Long tests\")")
	}
}
