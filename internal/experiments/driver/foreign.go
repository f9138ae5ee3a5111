package driver

import (
	"fmt"

	"github.com/parkbench/parkbench/internal/results"
)

// ForeignNoisy is the share of the machine's CPU time other processes may
// use while a configuration runs before its figures are flagged as noisy:
// the busy-machine policy's (results.NoisyShare, results/load.go).
const ForeignNoisy = results.NoisyShare

// ForeignWarning is the one warning for a foreign-load window (from
// probe.StartForeign ... Stop), "" when f was not measured or stayed under
// ForeignNoisy.
func ForeignWarning(f *results.Foreign) string {
	if f == nil || f.Fraction <= ForeignNoisy {
		return ""
	}
	return fmt.Sprintf("other processes used %.0f%% of the CPU time while this ran: the figures are noisy (compare them within this run; rerun on a quiet machine to record or quote them)", 100*f.Fraction)
}

// WarnForeign adds ForeignWarning(c.Foreign) to c's warnings, if any, as
// the coded warning results.WarnForeignCPU with the share.
func WarnForeign(c *results.Config) {
	if w := ForeignWarning(c.Foreign); w != "" {
		c.Warn(results.Warning{Code: results.WarnForeignCPU, Figure: c.Foreign.Fraction, Text: w})
	}
}

// RecordForeignLoad records the foreign-load window f (probe.StartForeign ...
// Stop) on c and warns when it was noisy. No window, or one too short to
// measure (a negative Fraction), leaves c without one.
func RecordForeignLoad(c *results.Config, f *results.Foreign) {
	if f == nil || f.Fraction < 0 {
		return
	}
	c.Foreign = f
	WarnForeign(c)
}
