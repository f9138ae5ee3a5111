package experiments

import (
	"context"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/experiments/e12"
	"github.com/parkbench/parkbench/internal/experiments/herd"
	"github.com/parkbench/parkbench/internal/experiments/lock"
	"github.com/parkbench/parkbench/internal/results"
)

// SuiteOptions are the options of each experiment of the suite.
type SuiteOptions struct {
	Latency  e12.LatencyOptions
	Selfwake e12.SelfwakeOptions
	Herd     herd.Options
	Lock     lock.Options
	// RwLock is one small rwlock configuration (lock --rwlock): NumCPU
	// readers, one writer.
	RwLock lock.Options
}

// DefaultSuite is the study's method for E12 and E6. The lock part is
// lock's quick sweep (2 and 2 x NumCPU threads, a few seconds): its full
// default sweep alone takes about 5 minutes, and is `parkbench lock`'s.
func DefaultSuite() SuiteOptions {
	return SuiteOptions{e12.DefaultLatencyOptions(), e12.DefaultSelfwakeOptions(), herd.DefaultOptions(), lock.QuickOptions(), defaultSuiteRw()}
}

// QuickSuite is a short run of the suite (under a minute on two vCPUs);
// its lock part is lock.QuickOptions (a few seconds).
func QuickSuite() SuiteOptions {
	return SuiteOptions{e12.QuickLatencyOptions(), e12.QuickSelfwakeOptions(), herd.QuickOptions(), lock.QuickOptions(), lock.QuickRwOptions()}
}

// Validate checks every experiment's options before anything is measured.
func (o SuiteOptions) Validate() error {
	for _, v := range []interface{ Validate() error }{o.Latency, o.Selfwake, o.Herd, o.Lock, o.RwLock} {
		if err := v.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// RunSuite runs the suite: E12 latency, its reverse check selfwake, E6
// herd, the contended lock and the rwlock, in that order. The reverse-check claim needs latency and selfwake
// from the same run: it replaces latency's "not evaluated" placeholder.
func RunSuite(ctx context.Context, o SuiteOptions, progress driver.Progress) ([]*results.Experiment, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	lat, err := e12.RunLatency(ctx, o.Latency, progress.Stage("latency"))
	if err != nil {
		return nil, err
	}
	self, err := e12.RunSelfwake(ctx, o.Selfwake, progress.Stage("selfwake"))
	if err != nil {
		return nil, err
	}
	lat.Claims = e12.MergeClaims(lat.Claims, e12.CrossClaims(lat, self))
	h, err := herd.Run(ctx, o.Herd, progress.Stage("herd"))
	if err != nil {
		return nil, err
	}
	l, err := lock.Run(ctx, o.Lock, progress.Stage("lock"))
	if err != nil {
		return nil, err
	}
	rw, err := lock.Run(ctx, o.RwLock, progress.Stage("rwlock"))
	if err != nil {
		return nil, err
	}
	return []*results.Experiment{lat, self, h, l, rw}, nil
}

// defaultSuiteRw is the suite's rwlock part: the quick configuration
// (NumCPU readers, one writer, no work) timed as the lock default.
func defaultSuiteRw() lock.Options {
	o := lock.QuickRwOptions()
	d := lock.DefaultOptions()
	o.Duration, o.Repeats = d.Duration, d.Repeats
	return o
}
