package parkers

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Conformance checks for parkers that come from outside this package (a
// plugin's, a Go program's through package bench): the contract the
// experiments rely on, checked in a fraction of a second before anything is
// measured. The package's own backends go through the fuller suite in
// conformance_test.go; these are the same ideas returning an error instead
// of failing a test, so a run can refuse a parker by name.
//
// Every participant is a goroutine locked to its OS thread, as in the
// experiments. A check that does not finish within limit reports a lost
// wakeup or a hang; its thread is left blocked (a parker that never returns
// cannot be taken back), which is why a failed check ends the run.

// ConformCycles is the ping-pong length of CheckToken and CheckThread.
const ConformCycles = 2000

// ConformLimit bounds each step of CheckToken and CheckThread as the
// experiments run them (internal/ext, package benchtest).
const ConformLimit = 5 * time.Second

// step is one check on the owner thread.
type step struct {
	what string
	fn   func() error
}

// CheckToken checks the token contract: a token left by Unpark before Park
// makes Park (and ParkDeadline) return at once; tokens do not accumulate;
// ParkDeadline times out (false, not before its deadline) without a token;
// and a ping-pong of cycles round trips, each side waking the other from
// its own thread, loses no wakeup. Each parker is created, parked and
// ParkDeadline'd on one thread (its owner: std's thread::park parks the
// calling thread). limit bounds every step.
func CheckToken(newP func() TokenParker, cycles int, limit time.Duration) error {
	var p TokenParker
	steps := []step{
		{"create", func() error { p = newP(); return nil }},
		{"Unpark then Park (the token must make Park return at once)", func() error { p.Unpark(); p.Park(); return nil }},
		{"Park with no token returns only after an Unpark (10 times)", func() error {
			for i := 0; i < 10; i++ {
				var sent atomic.Bool
				go func() {
					time.Sleep(time.Millisecond)
					sent.Store(true)
					p.Unpark()
				}()
				p.Park()
				if !sent.Load() {
					return fmt.Errorf("Park returned without a token (try %d): it may return only with one", i+1)
				}
				// The Unpark call may still be running: let it
				// finish before the next try's token.
				time.Sleep(time.Millisecond)
			}
			return nil
		}},
		{"Unpark then ParkDeadline(+1h)", func() error {
			p.Unpark()
			if !p.ParkDeadline(time.Now().Add(time.Hour)) {
				return fmt.Errorf("ParkDeadline after Unpark reported a timeout")
			}
			return nil
		}},
		{"ParkDeadline with no token", func() error {
			if p.ParkDeadline(time.Now().Add(-time.Second)) {
				return fmt.Errorf("ParkDeadline(past) with no token reported a token")
			}
			d := time.Now().Add(10 * time.Millisecond)
			if p.ParkDeadline(d) {
				return fmt.Errorf("ParkDeadline(+10ms) with no token reported a token")
			}
			if early := time.Until(d); early > 0 {
				return fmt.Errorf("ParkDeadline(+10ms) returned %v before its deadline", early)
			}
			return nil
		}},
		{"two Unparks leave one token", func() error {
			p.Unpark()
			p.Unpark()
			p.Park()
			if p.ParkDeadline(time.Now().Add(5 * time.Millisecond)) {
				return fmt.Errorf("a second token was left: tokens must not accumulate")
			}
			return nil
		}},
	}
	if err := onOwner(limit, steps); err != nil {
		return err
	}
	var ps [2]TokenParker
	var n tokenCount
	return conformPingPong(cycles, limit,
		func(me int) { ps[me] = newP() },
		func(me int, flag *atomic.Uint32) error {
			for flag.Load() == 0 {
				ps[me].Park()
				if err := n.returned(me, "Park"); err != nil {
					return err
				}
			}
			return nil
		},
		func(peer int) { n.unparking(peer); ps[peer].Unpark() })
}

// tokenCount catches a park that returns without a token (the contract
// says it may not: a parker that can must loop inside). Each unpark leaves
// at most one token and each park that returns consumes one, so a side's
// returns never outnumber the unparks made to it, whatever the races; the
// waker counts an unpark before making it. A park that returns spuriously
// while no token is pending (most of them, in a ping-pong) shows as one
// return too many.
type tokenCount struct {
	unparks, returns [2]atomic.Int64
}

func (c *tokenCount) unparking(peer int) { c.unparks[peer].Add(1) }

func (c *tokenCount) returned(me int, call string) error {
	if r, u := c.returns[me].Add(1), c.unparks[me].Load(); r > u {
		return fmt.Errorf("%s returned without a token (return %d after %d unparks): it may return only with one", call, r, u)
	}
	return nil
}

// CheckThread checks parking_lot's ThreadParkerT contract: Park after
// PreparePark and an unpark returns at once; ParkUntil times out (false,
// TimedOut true, not before its deadline) with no unpark; a ping-pong of
// cycles round trips (PreparePark, look at the flag, Park; the peer wakes
// from its own thread) loses no wakeup.
func CheckThread(newP func() ThreadParker, cycles int, limit time.Duration) error {
	var p ThreadParker
	steps := []step{
		{"create", func() error { p = newP(); return nil }},
		{"PreparePark, unpark, Park (Park must return at once)", func() error {
			p.PreparePark()
			p.UnparkLock().Unpark()
			p.Park()
			return nil
		}},
		{"ParkUntil with no unpark", func() error {
			p.PreparePark()
			d := time.Now().Add(10 * time.Millisecond)
			if p.ParkUntil(d) {
				return fmt.Errorf("ParkUntil(+10ms) with no unpark reported unparked")
			}
			if early := time.Until(d); early > 0 {
				return fmt.Errorf("ParkUntil(+10ms) returned %v before its deadline", early)
			}
			if !p.TimedOut() {
				return fmt.Errorf("TimedOut false with no unpark")
			}
			return nil
		}},
	}
	if err := onOwner(limit, steps); err != nil {
		return err
	}
	var ps [2]ThreadParker
	var n tokenCount
	return conformPingPong(cycles, limit,
		func(me int) { ps[me] = newP() },
		func(me int, flag *atomic.Uint32) error {
			for flag.Load() == 0 {
				ps[me].PreparePark()
				if flag.Load() == 0 {
					ps[me].Park()
					// Park returns only after an unpark (never
					// spuriously): never more returns than unparks.
					if err := n.returned(me, "Park"); err != nil {
						return err
					}
				}
			}
			return nil
		},
		func(peer int) { n.unparking(peer); ps[peer].UnparkLock().Unpark() })
}

// onOwner runs steps in order on one new locked thread, giving each at
// most limit; the first error (or a step still blocked) is returned.
func onOwner(limit time.Duration, steps []step) error {
	done := make(chan error, len(steps))
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		for _, s := range steps {
			err := func() (err error) {
				defer func() {
					if r := recover(); r != nil {
						err = fmt.Errorf("panic: %v", r)
					}
				}()
				return s.fn()
			}()
			if err != nil {
				done <- fmt.Errorf("%s: %w", s.what, err)
				return
			}
			done <- nil
		}
	}()
	for _, s := range steps {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
		case <-time.After(limit):
			return fmt.Errorf("%s: still blocked after %v: a lost wakeup or a park that hangs", s.what, limit)
		}
	}
	return nil
}

// conformPingPong runs cycles round trips between two locked threads, each first
// calling setup(me) (its parker is made on its own thread): side 0 sets
// side 1's flag and wakes it, then waits for its own; side 1 answers. A
// lost wakeup leaves both waiting: no progress for limit is reported. A
// wait's error (a park that broke the contract) ends the check at once,
// leaving the other side where it is.
func conformPingPong(cycles int, limit time.Duration, setup func(me int), wait func(me int, flag *atomic.Uint32) error, wake func(peer int)) error {
	var flags [2]atomic.Uint32
	var progress atomic.Int64
	var ready sync.WaitGroup
	ready.Add(2)
	done := make(chan struct{}, 2)
	failed := make(chan error, 2)
	side := func(me int) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		setup(me)
		ready.Done()
		ready.Wait()
		peer := 1 - me
		for i := 0; i < cycles; i++ {
			if me == 0 {
				flags[peer].Store(1)
				wake(peer)
			}
			if err := wait(me, &flags[me]); err != nil {
				failed <- fmt.Errorf("ping-pong, round trip %d: %w", i+1, err)
				return
			}
			flags[me].Store(0)
			progress.Add(1)
			if me == 1 {
				flags[peer].Store(1)
				wake(peer)
			}
		}
		done <- struct{}{}
	}
	go side(0)
	go side(1)
	last, since := int64(-1), time.Now()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for finished := 0; finished < 2; {
		select {
		case <-done:
			finished++
		case err := <-failed:
			return err
		case <-tick.C:
			if n := progress.Load(); n != last {
				last, since = n, time.Now()
			} else if time.Since(since) > limit {
				return fmt.Errorf("ping-pong: no progress for %v after %d of %d round trips: a lost wakeup (or a park that hangs)",
					limit, n/2, cycles)
			}
		}
	}
	return nil
}
