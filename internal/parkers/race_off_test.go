//go:build !race

package parkers

const raceEnabled = false
