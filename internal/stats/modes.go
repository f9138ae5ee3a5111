package stats

import (
	"math"
	"slices"
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
// Method (Modes): the samples of every round, pooled, on a log scale
// of modeBinsPerOctave bins per octave, smoothed over modeSmooth bins; the
// highest peak and the best second peak at least modeMinRatio away whose
// valley between them falls to modeMaxValley of the lower peak or below,
// with at least modeMinShare of the samples on its side (modeMinShareRound
// if some round's own median lies there: rounds that disagree). The split
// is the valley's lowest bin; each mode's median is read from the pooled
// samples on its side. Pure: a function of the rounds' histograms and
// medians, so it runs on any result file (latency's DetectModes reads them
// from a configuration and words the warning).
const (
	modeBinsPerOctave = 8
	modeSmooth        = 2    // ± bins of the moving sum: a quarter octave each way
	modeMinRatio      = 4.0  // peaks two octaves apart at least
	modeMaxValley     = 0.25 // the valley at most a quarter of the lower peak
	modeMinShare      = 0.10
	modeMinShareRound = 0.03
	modeMaxBins       = 40 * modeBinsPerOctave // 1 ns .. 2^40 ns
)

// Mode is one regime of a multimodal set of samples.
type Mode struct {
	// MedianNs is the median of the samples in this mode.
	MedianNs float64 `json:"median_ns"`
	// Share is the fraction of all samples in this mode (0..1).
	Share float64 `json:"share"`
	// Rounds lists the rounds (1-based) whose own median lies in this
	// mode, when the rounds split between modes.
	Rounds []int `json:"rounds,omitempty"`
}

// Bar is a histogram's bar: Count samples between From and To (ns).
type Bar struct{ From, To, Count int64 }

// ModeRound is one round's samples: its histogram's bars and its median
// (NaN: the round has no histogram; it is left out of the pool).
type ModeRound struct {
	Bars   []Bar
	Median float64
}

// Modes returns the modes of the rounds' samples pooled, largest share
// first, or nil when they have one mode (or none).
func Modes(rounds []ModeRound) []Mode {
	var bins [modeMaxBins]float64
	// sums[k] is the sum of the sample values of bin k, for the modes'
	// medians.
	var sums [modeMaxBins]float64
	var roundMed []float64
	total := 0.0
	for _, r := range rounds {
		roundMed = append(roundMed, r.Median)
		if math.IsNaN(r.Median) {
			continue
		}
		for _, b := range r.Bars {
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
		return nil
	}
	return splitModes(bins[:], sums[:], total, roundMed)
}

// ModeShareRound is the least share of the samples a mode holding a
// round's own median needs.
const ModeShareRound = modeMinShareRound

// modeBin is the log-scale bin of a value in ns.
func modeBin(v float64) int {
	k := int(math.Floor(modeBinsPerOctave * math.Log2(math.Max(v, 1))))
	return min(max(k, 0), modeMaxBins-1)
}

// splitModes finds two modes in the binned samples (see Modes).
func splitModes(bins, sums []float64, total float64, roundMed []float64) []Mode {
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
		return nil
	}
	split := bestValley // bins <= split: the lower mode
	modes := []Mode{
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
	slices.SortStableFunc(modes, func(a, b Mode) int {
		switch {
		case a.Share > b.Share:
			return -1
		case a.Share < b.Share:
			return 1
		}
		return 0
	})
	return modes
}

// modeOf is the mode of the samples in bins: its median (the mean value of
// the bin holding the middle sample) and share of total.
func modeOf(bins, sums []float64, total float64) Mode {
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
	return Mode{MedianNs: med, Share: count / total}
}
