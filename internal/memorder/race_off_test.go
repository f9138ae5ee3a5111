//go:build !race

package memorder

const raceEnabled = false
