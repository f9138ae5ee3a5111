//go:build race

package parkers

const raceEnabled = true
