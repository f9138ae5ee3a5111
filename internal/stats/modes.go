package latency

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/results"
)

// The bimodality detector. A latency configuration's samples can fall into
// two regimes that have nothing to do with each other: unpinned, the two
// threads share a CPU (the woken thread runs when its waker blocks, about
// 1 µs on the 2-vCPU KVM guest) or sit on two (a cross-CPU wake from idle,
// 20-30 µs), and the scheduler may move them between rounds; pinned or
// not, a wait that finds its flag already set records a sample far below
// the sleeping ones. The median of rounds is then the median of whichever
// regime most rounds landed in (unpinned futex on the guest: 0.83, 24.67,
// 31.86, 0.91 µs in four runs; inside one file rounds of 907, 33 375 and
// 31 855 ns), and a comparison of two such figures compares regimes.
//
// Method (DetectModes): the samples of every round, pooled, on a log scale
// of modeBinsPerOctave bins per octave, smoothed over modeSmooth bins; the
// highest peak and the best second peak at least modeMinRatio away whose
// valley between them falls to modeMaxValley of the lower peak or below,
// with at least modeMinShare of the samples on its side (modeMinShareRound
// if some round's own median lies there: rounds that disagree). The split
// is the valley's lowest bin; each mode's median is read from the pooled
// samples on its side. Pure: a function of the rounds' histograms and
// medians, so it runs on any result file.
const (
	modeBinsPerOctave = 8
	modeSmooth        = 2    // ± bins of the moving sum: a quarter octave each way
	modeMinRatio      = 4.0  // peaks two octaves apart at least
	modeMaxValley     = 0.25 // the valley at most a quarter of the lower peak
	modeMinShare      = 0.10
	modeMinShareRound = 0.03
	modeMaxBins       = 40 * modeBinsPerOctave // 1 ns .. 2^40 ns
)

// DetectModes returns the modes of cfg's samples, largest share first, and
// a one-line warning, or nil and "" when the samples have one mode (or no
// histograms). Rounds without a histogram are left out of the pool.
func DetectModes(cfg *results.Config) ([]results.Mode, string) {
	var bins [modeMaxBins]float64
	// values[k] is the mean sample value of bin k, for the modes' medians.
	var sums [modeMaxBins]float64
	var roundMed []float64
	total := 0.0
	for _, r := range cfg.Rounds {
		h, err := r.Hist()
		if err != nil || h == nil || h.TotalCount() == 0 {
			roundMed = append(roundMed, math.NaN())
			continue
		}
		roundMed = append(roundMed, float64(h.ValueAtQuantile(50)))
		for _, b := range h.Distribution() {
			if b.Count == 0 {
				continue
			}
			v := float64(b.From+b.To) / 2
			k := modeBin(v)
			bins[k] += float64(b.Count)
			sums[k] += v * float64(b.Count)
			total += float64(b.Count)
		}
	}
	if total == 0 {
		return nil, ""
	}
	return splitModes(bins[:], sums[:], total, roundMed, cfg)
}

// modeBin is the log-scale bin of a value in ns.
func modeBin(v float64) int {
	k := int(math.Floor(modeBinsPerOctave * math.Log2(math.Max(v, 1))))
	return min(max(k, 0), modeMaxBins-1)
}

// splitModes finds two modes in the binned samples (see DetectModes).
func splitModes(bins, sums []float64, total float64, roundMed []float64, cfg *results.Config) ([]results.Mode, string) {
	n := len(bins)
	smooth := make([]float64, n)
	for k := range bins {
		for j := max(0, k-modeSmooth); j <= min(n-1, k+modeSmooth); j++ {
			smooth[k] += bins[j]
		}
	}
	p1 := 0
	for k := range smooth {
		if smooth[k] > smooth[p1] {
			p1 = k
		}
	}
	minGap := int(math.Ceil(modeBinsPerOctave * math.Log2(modeMinRatio)))
	// cum[k] is the count of samples in bins < k.
	cum := make([]float64, n+1)
	for k, c := range bins {
		cum[k+1] = cum[k] + c
	}
	best, bestValley, bestScore := -1, -1, 0.0
	for p2 := range smooth {
		if p2-p1 < minGap && p1-p2 < minGap || smooth[p2] == 0 {
			continue
		}
		lo, hi := min(p1, p2), max(p1, p2)
		v := lo
		for k := lo; k <= hi; k++ {
			if smooth[k] < smooth[v] {
				v = k
			}
		}
		lower := min(smooth[p1], smooth[p2])
		if smooth[v] > modeMaxValley*lower {
			continue
		}
		// The share on p2's side of the valley.
		share := cum[v+1] / total
		if p2 > p1 {
			share = (total - cum[v+1]) / total
		}
		need := modeMinShare
		for _, m := range roundMed {
			if !math.IsNaN(m) && (p2 > p1) == (modeBin(m) > v) {
				need = modeMinShareRound
			}
		}
		if share < need {
			continue
		}
		if score := smooth[p2]; score > bestScore {
			best, bestValley, bestScore = p2, v, score
		}
	}
	if best < 0 {
		return nil, ""
	}
	split := bestValley // bins <= split: the lower mode
	modes := []results.Mode{
		modeOf(bins[:split+1], sums[:split+1], total),
		modeOf(bins[split+1:], sums[split+1:], total),
	}
	for r, m := range roundMed {
		if math.IsNaN(m) {
			continue
		}
		i := 0
		if modeBin(m) > split {
			i = 1
		}
		modes[i].Rounds = append(modes[i].Rounds, r+1)
	}
	slices.SortStableFunc(modes, func(a, b results.Mode) int {
		switch {
		case a.Share > b.Share:
			return -1
		case a.Share < b.Share:
			return 1
		}
		return 0
	})
	return modes, modesWarning(modes, cfg)
}

// modeOf is the mode of the samples in bins: its median (the mean value of
// the bin holding the middle sample) and share of total.
func modeOf(bins, sums []float64, total float64) results.Mode {
	count := 0.0
	for _, c := range bins {
		count += c
	}
	half, seen := count/2, 0.0
	med := 0.0
	for k, c := range bins {
		seen += c
		if c > 0 && seen >= half {
			med = sums[k] / c
			break
		}
	}
	return results.Mode{MedianNs: med, Share: count / total}
}

// modesCode is the code of a bimodal configuration's warning (the causes
// modesWarning names, in its order of precedence) and its figure: the
// share of waits that never slept, the threads kept to one placement
// (the mechanism's own paths), else rounds in different regimes.
func modesCode(cfg *results.Config) (string, float64) {
	if ns, ok := cfg.Summary[MNoSleepFraction]; ok && ns >= modeMinShareRound {
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
	if ns, ok := cfg.Summary[MNoSleepFraction]; ok && ns >= modeMinShareRound {
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
