//go:build !linux || !cgo

package cref

import "time"

// HerdAvailable says why the C herd does not run in this build.
func HerdAvailable() error { return why() }

// StartHerd is unavailable in this build.
func StartHerd(cfg HerdConfig) (*Herd, error) { return nil, why() }

// Herd is unavailable in this build.
type Herd struct{}

func (r *Herd) Counted() int                    { return 0 }
func (r *Herd) Tid(i int) int                   { return 0 }
func (r *Herd) Fire()                           {}
func (r *Herd) Wait(timeout time.Duration) bool { return true }
func (r *Herd) Result() HerdResult              { return HerdResult{} }
func (r *Herd) Close()                          {}
