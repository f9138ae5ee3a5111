//go:build !race

package loaded

const raceEnabled = false
