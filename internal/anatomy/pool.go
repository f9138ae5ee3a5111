package anatomy

import "slices"

// Pool folds joined wakes into a Summary as they come, keeping of each wake
// only what the figures read: its components (for the medians and p99s),
// its idle share, its run-queue wait, its measured t1 - t0; of a flagged
// wake only the count of its reason. A wake's Parts, the trace it was
// joined from and the records are not kept: an experiment joins a traced
// round, adds its wakes to the round's Pool and its configuration's, and
// drops the round's records before the next round (docs/anatomy.md,
// "Memory"). What a Pool holds is 8 bytes per figure per wake added, at
// most 8 figures: 64 bytes a wake.
//
// The zero Pool is empty and ready. Not safe for concurrent use.
type Pool struct {
	counts     [nOutcomes]int
	reasons    map[Outcome]string
	byReason   map[string]ReasonCount
	idleStates map[int64]int
	comp       [5][]float64
	share, rq  []float64
	measured   []float64
}

// Add folds one joined wake.
func (p *Pool) Add(w Parts) {
	p.counts[w.Outcome]++
	if w.Outcome.Flagged() {
		if p.reasons == nil {
			p.reasons, p.byReason = map[Outcome]string{}, map[string]ReasonCount{}
		}
		if _, ok := p.reasons[w.Outcome]; !ok {
			p.reasons[w.Outcome] = w.Why
		}
		rc := p.byReason[w.code]
		if rc.N == 0 {
			rc.Outcome, rc.Example = w.Outcome, w.Why
		}
		rc.N++
		p.byReason[w.code] = rc
		return
	}
	if !w.Outcome.Decomposed() {
		return
	}
	for i, v := range w.Ns {
		p.comp[i] = append(p.comp[i], float64(v))
	}
	if t := w.Total(); t > 0 {
		p.share = append(p.share, float64(w.Ns[1])/float64(t))
	}
	if w.Outcome == Busy {
		p.rq = append(p.rq, float64(w.Ns[2]))
		return
	}
	if p.idleStates == nil {
		p.idleStates = map[int64]int{}
	}
	p.idleStates[w.IdleState]++
}

// Grow makes room for wakes more wakes, so that adding them allocates
// nothing (a configuration's pool is sized for its rounds once, and grows
// by no doubling).
func (p *Pool) Grow(wakes int) {
	for i := range p.comp {
		p.comp[i] = slices.Grow(p.comp[i], wakes)
	}
	p.share = slices.Grow(p.share, wakes)
	p.rq = slices.Grow(p.rq, wakes)
	p.measured = slices.Grow(p.measured, wakes)
}

// Measured folds the t1 - t0 of a traced wait that slept (whatever its
// outcome), for the check of the sum against the measured median.
func (p *Pool) Measured(ns int64) { p.measured = append(p.measured, float64(ns)) }

// Wakes is the number of wakes added.
func (p *Pool) Wakes() int {
	n := 0
	for _, c := range p.counts {
		n += c
	}
	return n
}

// Summary is the anatomy of every wake added so far. It sorts the pool's
// figures in place (their order carries nothing); the Pool stays usable.
// The Summary's maps are its own.
func (p *Pool) Summary() Summary {
	s := Summary{Counts: p.counts, Reasons: map[Outcome]string{}, ByReason: map[string]ReasonCount{}, IdleStates: map[int64]int{}}
	for k, v := range p.reasons {
		s.Reasons[k] = v
	}
	for k, v := range p.byReason {
		s.ByReason[k] = v
	}
	for k, v := range p.idleStates {
		s.IdleStates[k] = v
	}
	for i := range p.comp {
		slices.Sort(p.comp[i])
		s.Median[i] = nearestRank(p.comp[i], 0.5)
		s.P99[i] = nearestRank(p.comp[i], 0.99)
	}
	slices.Sort(p.share)
	s.IdleShare = nearestRank(p.share, 0.5)
	slices.Sort(p.rq)
	s.RQWaitMedian = nearestRank(p.rq, 0.5)
	slices.Sort(p.measured)
	s.MeasuredMedian = nearestRank(p.measured, 0.5)
	return s
}

// Reset empties p and keeps its arrays' room for the next round.
func (p *Pool) Reset() {
	p.counts = [nOutcomes]int{}
	p.reasons, p.byReason, p.idleStates = nil, nil, nil
	for i := range p.comp {
		p.comp[i] = p.comp[i][:0]
	}
	p.share, p.rq, p.measured = p.share[:0], p.rq[:0], p.measured[:0]
}
