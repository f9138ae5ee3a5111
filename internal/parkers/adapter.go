package parkers

import (
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/chaos"
)

// ThreadFromToken adapts a token parker to the ThreadParker contract, so the
// parking lot can run on crossbeam's, std's or the Go-native parkers: a
// "should park" word (1 = park, 0 = unparked) as in linux.rs, with the token
// parker as the sleep.
//
// Missed-wakeup argument: the owner checks the word and then parks on the
// token; the waker clears the word and then leaves a token. If the token
// comes before the owner's park, it stays and the park returns at once. A
// token left over from an earlier round (the owner saw 0 and returned
// without consuming it) only makes a later park return early; the loop
// re-checks the word, so that is never visible to the caller.
func ThreadFromToken(newToken func() TokenParker) func() ThreadParker {
	return func() ThreadParker { return &tokenThread{tok: newToken()} }
}

type tokenThread struct {
	state atomic.Int32
	tok   TokenParker
}

type tokenThreadUnpark tokenThread

// PreparePark: a sequentially consistent store, ordered before the caller's
// later loads (no store->load reordering); a waker that clears the word
// after it also leaves a token, so the Park loop ends either way.
func (p *tokenThread) PreparePark()   { p.state.Store(1) }
func (p *tokenThread) TimedOut() bool { return p.state.Load() != 0 }

func (p *tokenThread) Park() {
	for p.state.Load() != 0 {
		p.tok.Park()
	}
}

func (p *tokenThread) ParkUntil(deadline time.Time) bool {
	for p.state.Load() != 0 {
		if !time.Now().Before(deadline) {
			chaos.Point("token-thread.park-until.timed-out")
			return false
		}
		p.tok.ParkDeadline(deadline)
	}
	return true
}

func (p *tokenThread) UnparkLock() UnparkHandle {
	p.state.Store(0)
	return (*tokenThreadUnpark)(p)
}

func (h *tokenThreadUnpark) Unpark() {
	chaos.Point("token-thread.unpark.before-token")
	h.tok.Unpark()
}

// WaitCounts forwards to the token parker when it counts.
func (p *tokenThread) WaitCounts() (blocked, immediate uint64) {
	if c, ok := p.tok.(WaitCounter); ok {
		return c.WaitCounts()
	}
	return 0, 0
}
