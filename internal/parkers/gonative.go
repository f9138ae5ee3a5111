package parkers

import (
	"sync"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// The Go-native mechanisms a Go programmer would use instead of a thread
// parker. They park the goroutine in the Go scheduler (gopark); a goroutine
// locked to its thread then puts that thread to sleep through the runtime
// (stoplockedm), so a wake costs a goroutine wake-up plus a thread hand-off.
// They are goroutine-level, and labelled so.

// chanParker is a token parker on a buffered channel of one: the buffered
// value is the token, so tokens do not accumulate.
type chanParker struct {
	ch    chan struct{}
	timer *time.Timer // owner-only, reused: no allocation per timed park
}

func newChan() TokenParker {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &chanParker{ch: make(chan struct{}, 1), timer: t}
}

func (p *chanParker) Park() {
	chaos.Point("chan.park.before-wait")
	<-p.ch
}

func (p *chanParker) ParkDeadline(deadline time.Time) bool {
	select {
	case <-p.ch:
		return true
	default:
	}
	// Between the token check and the blocking select: an Unpark here
	// must be found by the select.
	chaos.Point("chan.park-until.before-wait")
	d := time.Until(deadline)
	if d <= 0 {
		return false
	}
	// Go >= 1.23 timers: Reset and Stop leave no stale value in timer.C,
	// so the reused timer cannot fire into a later park.
	p.timer.Reset(d)
	select {
	case <-p.ch:
		p.timer.Stop()
		return true
	case <-p.timer.C:
		chaos.Point("chan.park-until.timed-out")
		return false
	}
}

// Unpark is a non-blocking send: if a token is already there, it stays the
// only one.
func (p *chanParker) Unpark() {
	chaos.Point("chan.unpark.before-send")
	select {
	case p.ch <- struct{}{}:
	default:
	}
}

// condParker is a token parker on sync.Mutex + sync.Cond + a flag.
// sync.Cond has no timed wait, so a reusable AfterFunc timer broadcasts at
// the deadline; the loop re-checks the flag and the clock, so a stale or
// early timer is only a spurious wakeup.
type condParker struct {
	mu    sync.Mutex
	cond  sync.Cond
	token bool // guarded by mu
	timer *time.Timer
}

func newCond() TokenParker {
	p := &condParker{}
	p.cond.L = &p.mu
	p.timer = time.AfterFunc(time.Hour, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	p.timer.Stop()
	return p
}

func (p *condParker) Park() {
	p.mu.Lock()
	for !p.token {
		// Under mu, between the token check and Wait: an Unpark here
		// blocks on mu until Wait has enqueued and unlocked.
		chaos.Point("cond.park.before-wait")
		// Wait enqueues on the notify list before it unlocks mu, so a
		// Signal after the unparker's Unlock finds us.
		p.cond.Wait()
		chaos.Point("cond.park.after-wait")
	}
	p.token = false
	p.mu.Unlock()
}

func (p *condParker) ParkDeadline(deadline time.Time) bool {
	p.mu.Lock()
	armed := false
	for !p.token {
		d := time.Until(deadline)
		if d <= 0 {
			break
		}
		p.timer.Reset(d)
		armed = true
		chaos.Point("cond.park-until.before-wait")
		p.cond.Wait()
		chaos.Point("cond.park-until.after-wait")
	}
	got := p.token
	p.token = false
	p.mu.Unlock()
	if armed {
		p.timer.Stop()
	}
	return got
}

func (p *condParker) Unpark() {
	p.mu.Lock()
	p.token = true
	p.mu.Unlock()
	chaos.Point("cond.unpark.before-signal")
	p.cond.Signal()
}

func init() {
	provide(NameChan, nil, nil, newChan)
	provide(NameCond, nil, nil, newCond)
}
