//go:build !race

package lot

const raceEnabled = false
