package lock

// This file holds what every experiment shares and the experiment driver
// (internal/experiments/driver) will provide: the option error type, the
// progress reporter, the median, histogram encoding, the monotonic clock
// and process CPU time. Swap it for the driver when the driver lands.

import (
	"fmt"
	"slices"
	_ "unsafe" // for go:linkname

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/results"
)

// Progress is told how far Run is; label names the configuration running.
// It may be nil.
type Progress func(done, total int, label string)

func (p Progress) report(done, total int, label string) {
	if p != nil {
		p(done, total, label)
	}
}

// OptionError is bad input: Field is the option (its command-line flag
// name without dashes) and Err says what is wrong and what is allowed.
// Commands turn it into exit status 2.
type OptionError struct {
	Field string
	Err   error
}

func (e *OptionError) Error() string { return "--" + e.Field + ": " + e.Err.Error() }
func (e *OptionError) Unwrap() error { return e.Err }

func badOption(field, format string, a ...any) error {
	return &OptionError{Field: field, Err: fmt.Errorf(format, a...)}
}

// median of v (mean of the middle two for even lengths); 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// newHist is a wait histogram: 1 ns to 100 s, 3 significant digits.
func newHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 100e9, 3) }

func encodeHist(h *hdrhistogram.Histogram) (string, error) { return results.EncodeHist(h) }

// nanotime is the runtime's monotonic clock: one vDSO
// clock_gettime(CLOCK_MONOTONIC), what the C floor reads. runtime.nanotime
// is one of the symbols the Go team keeps linkname-able on purpose.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// processCPUNs is this process's user+system CPU time in ns, -1 where the
// OS has no getrusage.
func processCPUNs() int64 {
	ru, err := osthread.ProcessUsage()
	if err != nil {
		return -1
	}
	return ru.UserNs + ru.SysNs
}
