package machine

import (
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/results"
)

// describeClock records the clock the experiments time with and its
// resolution (monoclock.Resolution), so that a reader can tell a figure
// from a clock step.
func describeClock(m *results.Machine) {
	m.TimingClock = monoclock.Source
	m.ClockResolutionNs = float64(monoclock.Resolution())
}
