//go:build race

package longtest

// Race is whether the test binary has the race detector (`go test -race`):
// it slows tests ~10x, and a test that runs fewer rounds under it says so
// where it reads Race. One constant for every package's tests.
const Race = true
