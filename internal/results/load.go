package results

import (
	"fmt"
	"math"
	"slices"

	"github.com/parkbench/parkbench/internal/stats"
)

// The busy-machine policy, once, on the share of the machine's CPU other
// processes used while a configuration ran (Config.Foreign, a window per
// configuration):
const (
	// NoisyShare: over it a configuration's figures carry the others'
	// noise (its warning, driver.ForeignWarning), and a file whose median
	// configuration is over it, or whose load average at the start
	// exceeded its CPUs where no configuration has the share, was recorded
	// under load (LoadNote: a note on the whole file, for comparing it
	// with another). A wake measured in microseconds is moved by a thread
	// that takes its CPU 5% of the time.
	NoisyShare = 0.05
	// BusyShare: over it a claim's figure is not judged (internal/claim):
	// a runnable thread then waits for a CPU as long as anything it
	// measures (lot/std-futex read 0.49x and 0.62x at 4 threads in the AMD
	// EPYC run with other processes on 55% of the CPU).
	BusyShare = 0.5
)

// Busy is the busiest window of cs over BusyShare, nil when none is (or
// none was measured: a Fraction of -1).
func Busy(cs ...*Config) *Foreign {
	var out *Foreign
	for _, c := range cs {
		if f := c.Foreign; f != nil && f.Fraction > BusyShare && (out == nil || f.Fraction > out.Fraction) {
			out = f
		}
	}
	return out
}

// BusyText: "other processes used 64% of the CPU"; a share that rounds to
// BusyShare has a decimal ("50.4%").
func BusyText(f *Foreign) string {
	prec := 0
	if math.Round(100*f.Fraction) <= 100*BusyShare {
		prec = 1
	}
	return fmt.Sprintf("other processes used %.*f%% of the CPU", prec, 100*f.Fraction)
}

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
			if c.Foreign.Fraction > NoisyShare {
				over++
			}
		}
	}
	load, cpus := f.Machine.LoadAvg[0], max(f.Machine.LogicalCPUs, 1)
	if len(fr) == 0 && load > float64(cpus) {
		return fmt.Sprintf("recorded under load: load average %.2f at the start on %d CPUs", load, cpus)
	}
	slices.Sort(fr)
	if len(fr) == 0 || stats.Median(fr) <= NoisyShare {
		return ""
	}
	return fmt.Sprintf("recorded under load: other processes used %.0f%% of the CPU in the median configuration (%d of %d configurations over %.0f%%, up to %.0f%%), load average %.2f at the start",
		100*stats.Median(fr), over, len(fr), 100*NoisyShare, 100*fr[len(fr)-1], load)
}
