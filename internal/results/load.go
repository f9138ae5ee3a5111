package results

import (
	"fmt"
	"slices"

	"github.com/parkbench/parkbench/internal/stats"
)

// busyForeign: a configuration's foreign share (Config.Foreign: the CPU
// time other processes used while it ran) above it is measured beside
// other work; a file whose median configuration is, or whose load average
// at the start exceeded its CPUs where no configuration has the share, was
// recorded under load. This is a note on the whole file, for comparing it
// with another; a claim's figure is judged by the claim kit's own busy
// policy on its configurations' windows (internal/claim, BusyShare).
const busyForeign = 0.05

// LoadNote says, in one line, that f was recorded under load, with the
// figures: the median configuration's foreign share, how many
// configurations were over 5%, and the load average at the start; "" when
// f was quiet (or nothing says). The median, not the largest share: a
// window shorter than a few scheduler ticks reads 0 or 50% on its own
// (the foreign share is counted in ticks), and one such configuration is
// not a busy machine. The recorded Intel Xeon baseline of 2026-12-02
// (load 3.03, 42% in the median configuration) is what this catches.
func LoadNote(f *File) string {
	var fr []float64
	over := 0
	for _, e := range f.Experiments {
		for _, c := range e.Configs {
			if c.Foreign == nil || c.Foreign.Fraction < 0 {
				continue
			}
			fr = append(fr, c.Foreign.Fraction)
			if c.Foreign.Fraction > busyForeign {
				over++
			}
		}
	}
	load := f.Machine.LoadAvg[0]
	cpus := max(f.Machine.LogicalCPUs, 1)
	if len(fr) == 0 {
		if load > float64(cpus) {
			return fmt.Sprintf("recorded under load: load average %.2f at the start on %d CPUs", load, cpus)
		}
		return ""
	}
	slices.Sort(fr)
	med := stats.Median(fr) // fr is not empty (returned above)
	if med <= busyForeign {
		return ""
	}
	return fmt.Sprintf("recorded under load: other processes used %.0f%% of the CPU in the median configuration (%d of %d configurations over %.0f%%, up to %.0f%%), load average %.2f at the start",
		100*med, over, len(fr), 100*busyForeign, 100*fr[len(fr)-1], load)
}
