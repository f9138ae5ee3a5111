//go:build !linux || !cgo

package cref

import (
	"errors"
	"runtime"
	"time"
)

// herdWhy is why the C herd does not run in this build.
func herdWhy() error {
	if runtime.GOOS != "linux" {
		return errors.New("the C herd is Linux-only (pthread_setaffinity_np, sched_getcpu, RUSAGE_THREAD, " +
			"waiters seen asleep in /proc/self/task); this is " + runtime.GOOS)
	}
	return errors.New("the C herd needs cgo (CGO_ENABLED=1 and a C compiler)")
}

// HerdAvailable says why the C herd does not run in this build.
func HerdAvailable() error { return herdWhy() }

// StartHerd is unavailable in this build.
func StartHerd(cfg HerdConfig) (*Herd, error) { return nil, herdWhy() }

// Herd is unavailable in this build.
type Herd struct{}

func (r *Herd) Counted() int                    { return 0 }
func (r *Herd) Tid(i int) int                   { return 0 }
func (r *Herd) Fire()                           {}
func (r *Herd) Wait(timeout time.Duration) bool { return true }
func (r *Herd) Result() HerdResult              { return HerdResult{} }
func (r *Herd) Close()                          {}
