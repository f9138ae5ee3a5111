//go:build race

package gate

// raceEnabled: the race detector slows the synthetic runs ~10x; the tests
// run fewer of them (the designed rates are still checked).
const raceEnabled = true
