//go:build !linux

package wake

import "sync"

// lingerer holds woken waiter threads until the run is over: a channel
// here (no futex; only lot and sync run off Linux).
type lingerer struct {
	ch   chan struct{}
	once sync.Once
}

func newLingerer() *lingerer { return &lingerer{ch: make(chan struct{})} }

func (l *lingerer) wait() { <-l.ch }
func (l *lingerer) end()  { l.once.Do(func() { close(l.ch) }) }
