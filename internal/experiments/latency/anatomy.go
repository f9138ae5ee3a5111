package latency

import (
	"context"
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/parkbench/parkbench/internal/anatomy"
)

// --anatomy (docs/anatomy.md): every measured round is paired with a traced
// one (anatomy.PairTrace), in alternating order (traced first on odd
// rounds), so the probe effect (traced median against untraced) is measured
// under the same mix of host states.

// openAnatomy checks the configuration's participants can be traced
// (anatomy.NewPairTrace).
func openAnatomy(r pairRunner, c latencyConfig, collect func(), perRound bool) (*anatomy.PairTrace, error) {
	return anatomy.NewPairTrace(r.tids(), c.cpus, c.n, c.rounds, collect, perRound)
}

// tracedRound runs one round under the trace and joins it; it returns the
// round's anatomy figures.
func (cr *configRun) tracedRound(ctx context.Context, h *hdrhistogram.Histogram) (map[string]float64, error) {
	return cr.anat.Round(func(enable, disable func() error, capture func(samples, ends []int64)) (m map[string]float64, err error) {
		err = cr.withBackend(func() error {
			if err := enable(); err != nil {
				return err
			}
			var err error
			m, _, err = measureRound(ctx, cr.runner, cr.c.n, h, cr.sysmon, func(pr pairRound) { capture(pr.samples, pr.ends) })
			if derr := disable(); err == nil {
				err = derr
			}
			return err
		})
		return m, err
	}, MMedianSlept)
}

// anatomyRound runs round i as a traced and an untraced round, in the
// order i's parity gives, and puts the traced round's anatomy into the
// untraced round's figures.
func (cr *configRun) anatomyRound(ctx context.Context, h *hdrhistogram.Histogram) error {
	i := len(cr.perRound) + 1
	var am map[string]float64
	var err error
	if i%2 == 1 {
		if am, err = cr.tracedRound(ctx, h); err != nil {
			return fmt.Errorf("%s traced round %d: %w", cr.c.key(), i, err)
		}
	}
	if err := cr.plainRound(ctx, h); err != nil {
		return err
	}
	if i%2 == 0 {
		if am, err = cr.tracedRound(ctx, h); err != nil {
			return fmt.Errorf("%s traced round %d: %w", cr.c.key(), i, err)
		}
	}
	m := cr.perRound[len(cr.perRound)-1]
	for k, v := range am {
		m[k] = v
	}
	if p, t := m[MMedianSlept], am[anatomy.MTracedMedian]; p > 0 && t > 0 {
		m[anatomy.MProbeEffect] = t/p - 1
	}
	return nil
}

// finishAnatomy puts the pooled anatomy into the summary (anatomy's
// Finish, against the untraced rounds' slept medians).
func (cr *configRun) finishAnatomy() {
	plain := make([]float64, 0, len(cr.perRound))
	for _, r := range cr.perRound {
		if v, ok := r[MMedianSlept]; ok {
			plain = append(plain, v)
		}
	}
	cr.anat.Finish(cr.cfg, plain)
}
