//go:build race

package lot

const raceEnabled = true
