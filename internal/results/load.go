package results

import (
	"fmt"
	"math"
	"slices"

	"github.com/parkbench/parkbench/internal/stats"
)

// Busy thresholds: a configuration's foreign share (Config.Foreign: the CPU
// time other processes used while it ran) above busyForeign is measured
// beside other work; a file whose median configuration is, or whose load
// average at the start exceeded its CPUs where no configuration has the
// share, was recorded under load.
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

// ClaimBusyForeign is the foreign share above which a claim leaves a
// configuration out (Foreign.Busy): with other processes on over half of
// the machine's CPU, a runnable thread waits for a CPU as long as for
// anything it measures, so a wait, a throughput or a P steal measures the
// load. lock's fairness claims and lock-faster-under-contention, and
// E12-sched-steals, use it; a claim with no configuration left is not
// evaluated, and says why.
const ClaimBusyForeign = 0.5

// Busy reports whether other processes used over ClaimBusyForeign of the
// CPU in f's window (false when f was not measured).
func (f *Foreign) Busy() bool { return f != nil && f.Fraction > ClaimBusyForeign }

// BusyText is the guard's reason for a claim's evidence: "other processes
// used 64% of the CPU (over 50%)"; a share that rounds to the limit has a
// decimal ("50.4%").
func (f *Foreign) BusyText() string {
	prec := 0
	if math.Round(100*f.Fraction) <= 100*ClaimBusyForeign {
		prec = 1
	}
	return fmt.Sprintf("other processes used %.*f%% of the CPU (over %.0f%%)", prec, 100*f.Fraction, 100*ClaimBusyForeign)
}

// Busiest is the busiest foreign-load window of cs when any is Busy, else
// nil: a claim that compares configurations leaves the comparison out when
// one of them ran busy.
func Busiest(cs ...*Config) *Foreign {
	var out *Foreign
	for _, c := range cs {
		if c.Foreign.Busy() && (out == nil || c.Foreign.Fraction > out.Fraction) {
			out = c.Foreign
		}
	}
	return out
}
