package pingpong

import (
	"github.com/parkbench/parkbench/internal/parkers"
)

// The mechanisms of the Go ping-pong (see the package's doc for the
// protocol around them). Each wait returns only once the side's flag is set,
// whatever its parker does, so a spurious or stale return is absorbed by the
// wait's own loop and never shows up as a sample.

// A wait counts as "did not sleep" when the flag was already set at its
// first look, or when none of its park calls blocked: the parker's
// WaitCounter (if it has one) shows no new blocked wait across the whole
// wait. A wait whose park returned early (a stale unpark) and then slept is
// a sleeping wait. Parkers without a WaitCounter only have the first rule.

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

// parkerMech drives a backend's parkers directly with the flag, one wait
// for both kinds as cref.c's wait_flag drives a plugin's parker: a
// parkers.ThreadParker (parking_lot's ThreadParkerT) the way the lot
// drives it with its queue, a parkers.TokenParker (crossbeam, std, and the
// Go-native channel and sync.Cond) through its token:
//
//	thread: waiter: for !flag { p.PreparePark(); if !flag { p.Park() } }
//	        waker:  flag = 1; p.UnparkLock().Unpark()
//	token:  waiter: for !flag { p.Park() }
//	        waker:  flag = 1; p.Unpark()
//
// Why no wake is lost, thread: PreparePark (arming the parker) comes before
// the waiter's second look at the flag, and the waker's flag store comes
// before its UnparkLock. If that second look still sees 0, the flag store,
// and so the UnparkLock, come after PreparePark in the (sequentially
// consistent) order of the atomics; Park then returns, because it only
// blocks until an UnparkLock that happened after PreparePark. If the look
// sees 1 the waiter never parks.
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
//
// Why no wake is lost, token: the token is left after the flag store. If
// the waiter's look saw 0, the Unpark comes after that look; either it
// finds the waiter parked and wakes it, or it leaves the token that the
// Park about to happen consumes at once. A token left by a wake the waiter
// did not need (it saw the flag first) makes the next trip's first Park
// return at once with the flag 0; the loop parks again. Tokens do not
// accumulate, so at most one such extra turn per trip.
type parkerMech struct {
	pp *pingpong
	b  parkers.Backend
	// Each side's parker, made on its own thread (setup): a thread
	// parker's in thread, else a token parker's in token.
	thread [2]parkers.ThreadParker
	token  [2]parkers.TokenParker
	wc     [2]parkers.WaitCounter
}

// Backend is the mechanism of a registered backend (parkerMech): thread
// parkers through the ThreadParker protocol, token and goroutine-level ones
// through their TokenParker when they have one.
func Backend(b parkers.Backend) Mechanism {
	return func(pp *pingpong) mechanism { return &parkerMech{pp: pp, b: b} }
}

func (m *parkerMech) setup(me int) {
	if m.b.Kind != parkers.KindThread && m.b.NewToken != nil {
		m.token[me] = m.b.NewToken()
		m.wc[me] = blockedCount(m.token[me])
		return
	}
	m.thread[me] = m.b.NewThread()
	m.wc[me] = blockedCount(m.thread[me])
}

func (m *parkerMech) wait(me int) bool {
	f := &m.pp.slots[me].flag
	if f.Load() != 0 {
		return true
	}
	wc := m.wc[me]
	b0 := blocked(wc)
	if p := m.thread[me]; p != nil {
		for f.Load() == 0 {
			p.PreparePark()
			if f.Load() == 0 {
				p.Park()
			}
		}
	} else {
		for p := m.token[me]; f.Load() == 0; {
			p.Park()
		}
	}
	return wc != nil && blocked(wc) == b0
}

func (m *parkerMech) wake(peer int) {
	if p := m.thread[peer]; p != nil {
		p.UnparkLock().Unpark()
		return
	}
	m.token[peer].Unpark()
}

// immediate sums the parkers' WaitCounter immediate counts (where they
// count).
func (m *parkerMech) immediate() uint64 {
	var n uint64
	for _, c := range m.wc {
		if c != nil {
			_, imm := c.WaitCounts()
			n += imm
		}
	}
	return n
}
