//go:build race

package drivertest

const raceEnabled = true
