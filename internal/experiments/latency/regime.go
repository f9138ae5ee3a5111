package latency

import (
	"fmt"
	"slices"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// Where a configuration's two threads ran, which decides what its wake
// is. Pinned, the placement says it. Unpinned, the scheduler chose, and
// may change its mind between rounds: same_cpu_fraction (every 16th wake
// sampled, the mean over rounds) tells. A bimodal configuration (Modes) is
// not mixed by that alone: on one CPU pthread's samples split 60/40 at
// 0.88 and 2.3 µs, futex-raw-1ms's at 0.9 and 9.3 µs, its own two paths.
const (
	// regimeTwoCPUs: a wake across CPUs (cross-core; unpinned with both
	// threads on one CPU for at most regimeEdge of sampled wakes).
	regimeTwoCPUs = "two CPUs"
	// regimeOneCPU: both threads on one CPU (same-core; unpinned at least
	// 1 - regimeEdge of sampled wakes): the woken thread runs when its
	// waker blocks or is preempted, a context switch, not a wake-up.
	regimeOneCPU = "one CPU"
	// regimeMixed: unpinned and both (a same-CPU share in between): its
	// median is one regime's and is not compared.
	regimeMixed = "mixed"
	// regimeUnknown: unpinned where the CPU cannot be read (every OS but
	// Linux): judged as one group, as before the regimes.
	regimeUnknown = "unknown"
	regimeEdge    = 0.1
)

// regimeOf is cfg's regime (see the constants).
func regimeOf(cfg *results.Config) string {
	switch cfg.Placement {
	case driver.CrossCore:
		return regimeTwoCPUs
	case driver.SameCore:
		return regimeOneCPU
	}
	f, ok := cfg.Summary[MSameCPU]
	switch {
	case !ok || f < 0:
		return regimeUnknown
	case f <= regimeEdge:
		return regimeTwoCPUs
	case f >= 1-regimeEdge:
		return regimeOneCPU
	}
	return regimeMixed
}

// regimeGroup is one placement and regime.
type regimeGroup struct{ placement, regime string }

// label: the placement, and the regime where the placement does not imply
// it (unpinned).
func (g regimeGroup) label() string {
	if g.placement == driver.Unpinned && g.regime != regimeUnknown {
		return g.placement + " (" + g.regime + ")"
	}
	return g.placement
}

// regimeGroups lists lat's placements x regimes in order of first
// appearance, mixed left out.
func regimeGroups(lat *results.Experiment) []regimeGroup {
	var out []regimeGroup
	for _, cfg := range lat.Configs {
		g := regimeGroup{cfg.Placement, regimeOf(cfg)}
		if g.regime != regimeMixed && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

// leftOut names the sleeping gap-0 configurations no claim compares
// because their samples mix regimes, with why.
func leftOut(lat *results.Experiment) string {
	var keys []string
	for _, cfg := range lat.Configs {
		if isSleeping(cfg) && gapZero(cfg) && regimeOf(cfg) == regimeMixed {
			keys = append(keys, cfg.Key+sameCPUNote(cfg))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return "left out, their samples mix a wake on one CPU and one across two: " + strings.Join(keys, ", ")
}

// oneCPUOut names the sleeping gap-0 configurations a claim about wakes
// across CPUs does not judge.
func oneCPUOut(lat *results.Experiment) string {
	var keys []string
	for _, cfg := range lat.Configs {
		if cfg.Params["sleeps"] == "true" && gapZero(cfg) {
			if r := regimeOf(cfg); r == regimeOneCPU || r == regimeMixed {
				keys = append(keys, cfg.Key+sameCPUNote(cfg))
			}
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return "not judged, both threads on one CPU for some or all wakes (a switch, not a wake across CPUs): " + strings.Join(keys, ", ")
}

// sameCPUNote is " (same CPU N%)" for an unpinned configuration.
func sameCPUNote(cfg *results.Config) string {
	if f, ok := cfg.Summary[MSameCPU]; ok && f >= 0 && cfg.Placement == driver.Unpinned {
		return fmt.Sprintf(" (same CPU %.0f%%)", 100*f)
	}
	return ""
}

// acrossCPUs reports whether cfg's wakes are judged as wakes across CPUs:
// its regime is two CPUs, or unknown (no CPU to read: judged as before).
func acrossCPUs(cfg *results.Config) bool {
	r := regimeOf(cfg)
	return r == regimeTwoCPUs || r == regimeUnknown
}

// isSleeping: a thread-level implementation whose waits block in the kernel.
func isSleeping(cfg *results.Config) bool {
	return cfg.Params["sleeps"] == "true" && cfg.Kind != "goroutine"
}

func gapZero(cfg *results.Config) bool {
	g := cfg.Params["gap"]
	return g == "" || g == "0s"
}

func placementsOf(lat *results.Experiment) []string {
	var out []string
	for _, cfg := range lat.Configs {
		if !slices.Contains(out, cfg.Placement) {
			out = append(out, cfg.Placement)
		}
	}
	return out
}

func findConfig(lat *results.Experiment, impl, placement string) *results.Config {
	for _, cfg := range lat.Configs {
		if cfg.Impl == impl && cfg.Placement == placement && gapZero(cfg) {
			return cfg
		}
	}
	return nil
}

// fmtNs renders ns for evidence: µs from 1 µs up, else ns.
func fmtNs(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.2f µs", v/1000)
	}
	return fmt.Sprintf("%.0f ns", v)
}

// exp wraps configurations for the helpers that read an experiment.
func exp(cs []*results.Config) *results.Experiment { return &results.Experiment{Configs: cs} }
