package latency

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
	"github.com/parkbench/parkbench/internal/stats"
)

// DetectModes returns the modes of cfg's samples (stats.Modes over its
// rounds' histograms), largest share first, and a one-line warning, or nil
// and "" when the samples have one mode (or no histograms). Rounds without
// a histogram are left out of the pool.
func DetectModes(cfg *results.Config) ([]results.Mode, string) {
	var rounds []stats.ModeRound
	for _, r := range cfg.Rounds {
		h, err := r.Hist()
		if err != nil || h == nil || h.TotalCount() == 0 {
			rounds = append(rounds, stats.ModeRound{Median: math.NaN()})
			continue
		}
		mr := stats.ModeRound{Median: float64(h.ValueAtQuantile(50))}
		for _, b := range h.Distribution() {
			mr.Bars = append(mr.Bars, stats.Bar{From: b.From, To: b.To, Count: b.Count})
		}
		rounds = append(rounds, mr)
	}
	modes := stats.Modes(rounds)
	if modes == nil {
		return nil, ""
	}
	return modes, modesWarning(modes, cfg)
}

// modesCode is the code of a bimodal configuration's warning (the causes
// modesWarning names, in its order of precedence) and its figure: the
// share of waits that never slept, the threads kept to one placement
// (the mechanism's own paths), else rounds in different regimes.
func modesCode(cfg *results.Config) (string, float64) {
	if ns, ok := cfg.Summary[MNoSleepFraction]; ok && ns >= stats.ModeShareRound {
		return results.WarnBimodalNoSleep, ns
	}
	if cfg.Placement == driver.Unpinned {
		if s, split := sameCPUByRound(cfg); !split && s != "" {
			return results.WarnBimodalMechanism, 0
		}
	}
	return results.WarnBimodalRounds, 0
}

// modesWarning is the configuration's one line about its modes: each
// mode's median and share (and rounds, when they split), and what the two
// regimes are where the run can tell: unpinned, the share of sampled wakes
// with both threads on one CPU; the share of waits that never slept.
func modesWarning(modes []results.Mode, cfg *results.Config) string {
	var parts []string
	for _, m := range modes {
		p := fmt.Sprintf("%.0f%% of samples around %s", 100*m.Share, fmtNs(m.MedianNs))
		if len(m.Rounds) > 0 && len(m.Rounds) < len(cfg.Rounds) {
			p += " (" + roundList(m.Rounds) + ")"
		}
		parts = append(parts, p)
	}
	w := "bimodal: " + strings.Join(parts, ", ") + "; the median of rounds is one regime's, not a typical wake"
	var why []string
	if cfg.Placement == driver.Unpinned {
		if s, split := sameCPUByRound(cfg); split {
			why = append(why, "unpinned: both threads on one CPU on "+s+" of sampled wakes (on one CPU the woken thread runs when its waker blocks; on two it is a cross-CPU wake): pin with --placement=cross-core or same-core to measure one regime")
		} else if s != "" {
			why = append(why, "unpinned, but the threads kept to one placement (both on one CPU on "+s+" of sampled wakes): the modes are the mechanism's own")
		}
	}
	if ns, ok := cfg.Summary[MNoSleepFraction]; ok && ns >= stats.ModeShareRound {
		why = append(why, fmt.Sprintf("%.0f%% of waits never slept (their samples are the short ones; median_slept_ns is the median of the others)", 100*ns))
	}
	if len(why) > 0 {
		w += "; " + strings.Join(why, "; ")
	}
	return w
}

// sameCPUByRound renders the same-CPU fraction of each round ("0%, 100%,
// 100%"), or "" when not measured; split reports whether the rounds were
// not all on one CPU (>= 90%) or all on two (<= 10%).
func sameCPUByRound(cfg *results.Config) (text string, split bool) {
	var parts []string
	one, two := true, true
	for _, r := range cfg.Rounds {
		v, ok := r.Metrics[MSameCPU]
		if !ok || v < 0 {
			return "", false
		}
		parts = append(parts, fmt.Sprintf("%.0f%%", 100*v))
		one = one && v >= 1-regimeEdge
		two = two && v <= regimeEdge
	}
	switch len(parts) {
	case 0:
		return "", false
	case 1:
		return parts[0], !one && !two
	}
	return strings.Join(parts, ", ") + " (by round)", !one && !two
}

func roundList(rs []int) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.Itoa(r)
	}
	if len(rs) == 1 {
		return "round " + s[0]
	}
	return "rounds " + strings.Join(s, ", ")
}

// pooledSameCPU is the same-CPU fraction over every round (they sample
// equally many wakes): the share of all sampled wakes with both threads on
// one CPU. A median of rounds would hide a minority regime, which is what
// the fraction is there to show.
func pooledSameCPU(rounds []map[string]float64) (float64, bool) {
	sum, n := 0.0, 0
	for _, r := range rounds {
		if v, ok := r[MSameCPU]; ok && v >= 0 {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	return sum / float64(n), true
}
