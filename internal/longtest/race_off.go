//go:build !race

package longtest

// Race is whether the test binary has the race detector (race_on.go).
const Race = false
