package latency

import (
	"github.com/parkbench/parkbench/internal/parkers"
)

// The mechanisms of the Go ping-pong (see pingpong.go for the
// protocol around them). Each wait returns only once the side's flag is set,
// whatever its parker does, so a spurious or stale return is absorbed by the
// wait's own loop and never shows up as a sample.

// A wait counts as "did not sleep" when the flag was already set at its
// first look, or when none of its park calls blocked: the parker's
// WaitCounter (if it has one) shows no new blocked wait across the whole
// wait. A wait whose park returned early (a stale unpark) and then slept is
// a sleeping wait. Parkers without a WaitCounter only have the first rule.

// waitCounts reads a parker's WaitCounter immediate count, if it has one.
func waitCounts(p any) uint64 {
	if c, ok := p.(parkers.WaitCounter); ok {
		_, imm := c.WaitCounts()
		return imm
	}
	return 0
}

// blockedCount returns p's WaitCounter, or nil.
func blockedCount(p any) parkers.WaitCounter {
	c, _ := p.(parkers.WaitCounter)
	return c
}

func blocked(c parkers.WaitCounter) uint64 {
	if c == nil {
		return 0
	}
	b, _ := c.WaitCounts()
	return b
}

// sides are the two sides' parkers of a mechanism (P: a ThreadParker or a
// TokenParker) and their wait counters: what threadMech and tokenMech share
// outside their waits. The waits (the protocol, on the measured path) are
// each mechanism's own methods, which read p and wc as plain fields: no call
// goes through the type parameter.
type sides[P any] struct {
	pp  *pingpong
	new func() P
	p   [2]P
	wc  [2]parkers.WaitCounter
}

func (m *sides[P]) setup(me int) {
	m.p[me] = m.new()
	m.wc[me] = blockedCount(m.p[me])
}

func (m *sides[P]) immediate() uint64 { return waitCounts(m.p[0]) + waitCounts(m.p[1]) }

// threadMech drives a parkers.ThreadParker (parking_lot's ThreadParkerT)
// directly with the flag, the way the lot drives it with its queue:
//
//	waiter: for !flag { p.PreparePark(); if !flag { p.Park() } }
//	waker:  flag = 1; p.UnparkLock().Unpark()
//
// Why no wake is lost: PreparePark (arming the parker) comes before the
// waiter's second look at the flag, and the waker's flag store comes before
// its UnparkLock. If that second look still sees 0, the flag store, and so
// the UnparkLock, come after PreparePark in the (sequentially consistent)
// order of the atomics; Park then returns, because it only blocks until an
// UnparkLock that happened after PreparePark. If the look sees 1 the waiter
// never parks.
//
// The stale unpark: the waker calls UnparkLock/Unpark on every wake, also
// when the waiter saw the flag at once and never parked, and it may run that
// call late, after the waiter has already answered and armed the parker for
// the next trip. That stale UnparkLock makes the next Park return early, with
// the flag still 0; the loop re-arms with PreparePark and parks again, and
// the real wake for that trip comes later under the same argument as above.
// A stale FUTEX_WAKE that lands on a later FUTEX_WAIT is the backend's own
// spurious return, which its Park loop absorbs. So a stale unpark costs an
// extra turn of the loop, never a lost or a false wake.
type threadMech struct{ sides[parkers.ThreadParker] }

func (m *threadMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	p, wc := m.p[me], m.wc[me]
	b0 := blocked(wc)
	for f.Load() == 0 {
		p.PreparePark()
		if f.Load() == 0 {
			p.Park()
		}
	}
	return wc != nil && blocked(wc) == b0
}

func (m *threadMech) wake(peer int) { m.p[peer].UnparkLock().Unpark() }

// tokenMech drives a parkers.TokenParker (crossbeam, std, and the Go-native
// channel and sync.Cond):
//
//	waiter: for !flag { Park() }
//	waker:  flag = 1; Unpark()
//
// Why no wake is lost: the token is left after the flag store. If the
// waiter's look saw 0, the Unpark comes after that look; either it finds the
// waiter parked and wakes it, or it leaves the token that the Park about to
// happen consumes at once. A token left by a wake the waiter did not need
// (it saw the flag first) makes the next trip's first Park return at once
// with the flag 0; the loop parks again. Tokens do not accumulate, so at
// most one such extra turn per trip.
type tokenMech struct{ sides[parkers.TokenParker] }

func (m *tokenMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	p, wc := m.p[me], m.wc[me]
	b0 := blocked(wc)
	for f.Load() == 0 {
		p.Park()
	}
	return wc != nil && blocked(wc) == b0
}

func (m *tokenMech) wake(peer int) { m.p[peer].Unpark() }

// newBackendMech builds the mechanism of a registered backend: thread
// parkers through the ThreadParker protocol, token and goroutine-level ones
// through their TokenParker when they have one.
func newBackendMech(b parkers.Backend, pp *pingpong) mechanism {
	if b.Kind != parkers.KindThread && b.NewToken != nil {
		return &tokenMech{sides[parkers.TokenParker]{pp: pp, new: b.NewToken}}
	}
	return &threadMech{sides[parkers.ThreadParker]{pp: pp, new: b.NewThread}}
}
