//go:build race

package trend

// raceEnabled: the race detector slows the synthetic series ~10x; the
// tests run fewer of them.
const raceEnabled = true
