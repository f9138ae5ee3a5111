package driver

import (
	"fmt"
	"strings"
	"time"

	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/results"
)

// A figure below the resolution of the clock that measured it is not a
// measurement: selfwake once timed its samples with Go's own clock, which
// on Windows steps at the timer tick (about 4 ms under Wine), so 100 pairs
// read 0 ns, the histogram clamped that to 1 and the result said 0.01 ns per
// pair. Every experiment now times with internal/monoclock, and this check
// refuses what is still too short for it, on every OS.

// BelowClockPrefix opens the warning of a configuration with refused
// figures.
const BelowClockPrefix = "below clock resolution"

// RefuseBelowResolution removes from cfg's summary and rounds every figure
// of figures whose measured interval (the figure x perInterval: selfwake's
// figures are per pair, its intervals samples of Pairs pairs) is below res,
// the resolution of clock, and says so in a warning. A figure missing from
// the result renders as "-", is not compared and feeds no claim; a number
// there would be the clock's step, not the mechanism. res <= 0 (unknown)
// refuses nothing. It returns the refused figures.
func RefuseBelowResolution(cfg *results.Config, figures []string, perInterval float64, res time.Duration, clock string) []string {
	var refused, shown []string
	for _, f := range figures {
		v, ok := cfg.Summary[f]
		if !ok || !monoclock.BelowResolution(v*perInterval, res) {
			continue
		}
		refused = append(refused, f)
		shown = append(shown, fmt.Sprintf("%s %.4g", f, v))
		delete(cfg.Summary, f)
		for i := range cfg.Rounds {
			delete(cfg.Rounds[i].Metrics, f)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	interval := "one interval per sample"
	if perInterval != 1 {
		interval = fmt.Sprintf("each sample times %.0f pairs", perInterval)
	}
	cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %s (%s) measured less than one step of %s (%v): refused, not recorded",
		BelowClockPrefix, strings.Join(shown, ", "), interval, clock, res))
	return refused
}

// ClockNote is the Windows note of latency and selfwake: which clock timed
// the samples, and its step.
func ClockNote() string {
	return fmt.Sprintf("samples timed with %s (step %v): Go's own monotonic clock here advances only at the system timer's tick (internal/monoclock)",
		monoclock.Source, monoclock.Resolution())
}
