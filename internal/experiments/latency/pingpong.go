package latency

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// This file is E12's measured loop for the Go implementations: two
// participants, each a goroutine locked to its OS thread for its whole life
// (osthread.Go), ping-ponging through a mechanism. The C reference runs the
// same protocol in internal/cref.
//
// Protocol of one round trip i (side 0 starts, side 1 answers):
//
//	side 0: send(1, i); wait(0); record
//	side 1: wait(1); record; send(0, i)
//
// send(peer) writes the current monotonic time into the peer's slot, sets the
// peer's flag, then performs the mechanism's wake. wait(me) returns once my
// flag is set; the woken side then computes now - stamp (the one-way
// latency), stores it in the pre-allocated sample buffer and clears its own
// flag before it sends back. The peer sets that flag again only after it has
// received the answer, so a flag is never set while already set, and the
// stamp read after seeing the flag is always this wake's stamp (Go atomics
// are sequentially consistent: the stamp store precedes the flag store).
//
// Nothing in the loop allocates: the samples go into a buffer sized before
// the first round, the mechanisms' closures and handles are built before the
// loop, and the per-round figures are plain fields handed back over a
// channel after the loop.

// slot is one side's mailbox, alone on its cache line (the wake moves one
// line between cores, as in the C reference).
type slot struct {
	flag  atomic.Int32 // 1: a wake is pending for this side (a futex word for the twins)
	cpu   atomic.Int32 // waker's CPU at a sampled wake (unpinned runs)
	stamp atomic.Int64 // waker's monotonic ns; -1 asks the side to stop
	// park is spin-1line's should-park word (oneline.go), on the flag's
	// line; no other mechanism touches it.
	park atomic.Uint32
	_    [64 - 20]byte
}

// mechanism is one implementation's wait and wake, for two participants.
type mechanism interface {
	// setup runs on participant me's own thread before its first round
	// (parkers belong to the thread that parks on them).
	setup(me int)
	// wait returns once pp.slots[me].flag is set. It reports true when
	// the wait returned without sleeping because the flag was already set
	// at its first look.
	wait(me int) (noSleep bool)
	// wake wakes side peer after its flag was set.
	wake(peer int)
	// immediate is the parkers' own count of park calls that returned
	// without sleeping (WaitCounter), both sides; 0 when not counted. The
	// controller reads it between rounds only.
	immediate() uint64
}

// pingpong is the state both participants share.
type pingpong struct {
	_     [64]byte
	slots [2]slot
	base  int64 // nanotime at start: stamps are ns since base
	m     mechanism
	gap   time.Duration
	// sampleCPU: every 16th wake records whether both sides share a CPU.
	sampleCPU bool
	abort     atomic.Bool
	samples   []int64 // 2*capacity; side me writes [me*n, (me+1)*n)
	// ends (--anatomy only, else nil): each sample's woken-side clock
	// reading, absolute monotonic ns, laid out as samples.
	ends []int64
	// tid: each participant's kernel thread id, set in its setup.
	tid [2]int32
}

// now is monotonic ns since base (monoclock.Nanotime: one CLOCK_MONOTONIC read).
func (pp *pingpong) now() int64 { return monoclock.Nanotime() - pp.base }

// sideResult is what one participant measured in a round.
type sideResult struct {
	done       int // round trips completed
	noSleep    uint64
	csw        int64 // this thread's RUSAGE_THREAD delta, read inside it
	same, cpus int64
}

// send is the waker's half: optional idle gap, stamp, flag, wake.
func (pp *pingpong) send(peer, i int) {
	if pp.gap > 0 {
		// A real sleep of this thread (nanosleep on the locked thread;
		// time.Sleep would only park the goroutine), so the peer's CPU
		// can go idle before the wake.
		idle(pp.gap)
	}
	s := &pp.slots[peer]
	if pp.sampleCPU && i&15 == 0 {
		s.cpu.Store(int32(osthread.CPU()))
	}
	s.stamp.Store(pp.now())
	s.flag.Store(1) // after the stamp: the woken side reads this stamp
	pp.m.wake(peer) // after the flag: see each mechanism's wait
}

// stop is side 0's abort: it hands side 1 a stamp of -1 instead of a wake
// for trip i, so side 1 leaves its loop instead of waiting forever.
func (pp *pingpong) stop(peer int) {
	s := &pp.slots[peer]
	s.stamp.Store(-1)
	s.flag.Store(1)
	pp.m.wake(peer)
}

// run is participant me's part of a round of n trips.
func (pp *pingpong) run(me, n int) sideResult {
	peer := 1 - me
	out := pp.samples[me*n : (me+1)*n]
	s := &pp.slots[me]
	var r sideResult
	for i := 0; i < n; i++ {
		if me == 0 {
			// Only side 0 decides to stop, and only at the top of a
			// trip, so side 1 is always either waiting for this
			// trip's wake or about to.
			if i&1023 == 0 && pp.abort.Load() {
				pp.stop(peer)
				break
			}
			pp.send(peer, i)
		}
		noSleep := pp.m.wait(me)
		if noSleep {
			r.noSleep++
		}
		t := pp.now()
		st := s.stamp.Load()
		if st < 0 {
			s.flag.Store(0)
			break
		}
		if out[i] = t - st; noSleep {
			out[i] = ^out[i] // marked: see sleptMetrics
		}
		if pp.ends != nil {
			pp.ends[me*n+i] = t + pp.base
		}
		if pp.sampleCPU && i&15 == 0 {
			r.cpus++
			if int32(osthread.CPU()) == s.cpu.Load() {
				r.same++
			}
		}
		s.flag.Store(0) // before answering: the peer sets it again only after
		if me == 1 {
			pp.send(peer, i)
		}
		r.done++
	}
	return r
}

// pairRunner runs rounds on two persistent participants: the Go pingpong or
// the C reference.
type pairRunner interface {
	// round runs n round trips and returns both sides' figures, with the
	// 2n samples (valid until the next round).
	round(ctx context.Context, n int) (pairRound, error)
	immediate() uint64
	// tids are the participants' kernel thread ids (side 0, side 1).
	tids() [2]int32
	close()
}

// pairRound is one round's raw figures, both sides.
type pairRound struct {
	samples    []int64
	ends       []int64 // --anatomy: the woken side's clock per sample
	noSleep    uint64
	threadCsw  int64
	same, cpus int64
}

// goPair drives a pingpong on two osthread.Go participants, kept for every
// round of one configuration.
type goPair struct {
	pp       *pingpong
	cmd      [2]chan int
	res      chan struct{}
	out      [2]sideResult
	watchdog time.Duration
	timer    *time.Timer // the watchdog, made once: a round allocates nothing
	broken   bool
}

var errLostWake = errors.New("a round did not finish within the watchdog: a wake was lost or a participant is stuck (its threads are abandoned)")

// newGoPair starts the participants, pins them to cpus (-1: unpinned) and
// lets each set up its side of the mechanism.
//
// With goroutines set the participants are plain goroutines instead: not
// locked, not pinned (cpus is ignored), and each announces itself to a
// running runtime trace before a round (schedacct.MarkParticipant), so
// that the traced round's wakes can be told from the controller's. A
// plain goroutine has no thread of its own: its switches are not counted
// (the process's are).
func newGoPair(m mechanism, pp *pingpong, cpus [2]int, goroutines bool) (*goPair, error) {
	g := &goPair{pp: pp, res: make(chan struct{}, 2), timer: time.NewTimer(time.Hour)}
	g.timer.Stop()
	g.cmd[0] = make(chan int, 1)
	g.cmd[1] = make(chan int, 1)
	pp.m = m
	ready := make(chan error, 2)
	start := osthread.Go
	if goroutines {
		start = func(fn func()) { go fn() }
	}
	for me := 0; me < 2; me++ {
		me := me
		start(func() {
			if cpus[me] >= 0 && !goroutines {
				if err := osthread.Pin(cpus[me]); err != nil {
					ready <- err
					return
				}
			}
			pp.tid[me] = int32(osthread.Tid())
			m.setup(me)
			ready <- nil
			for n := range g.cmd[me] {
				if goroutines {
					schedacct.MarkParticipant()
					g.out[me] = pp.run(me, n)
					g.out[me].csw = -1
					g.res <- struct{}{}
					continue
				}
				var r sideResult
				u0, err0 := osthread.ThreadUsage()
				r = pp.run(me, n)
				u1, err1 := osthread.ThreadUsage()
				if err0 == nil && err1 == nil {
					r.csw = u1.Sub(u0).Switches()
				} else {
					r.csw = -1
				}
				g.out[me] = r
				g.res <- struct{}{}
			}
			// Channel closed: exit; the locked thread retires.
		})
	}
	var first error
	for i := 0; i < 2; i++ {
		if err := <-ready; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		g.close()
		return nil, first
	}
	return g, nil
}

func (g *goPair) immediate() uint64 { return g.pp.m.immediate() }

func (g *goPair) tids() [2]int32 { return g.pp.tid }

// round hands both participants n trips and waits for both. On ctx
// cancellation it asks side 0 to stop (at most 1024 trips later) and still
// waits, so the threads are never left inside a round.
func (g *goPair) round(ctx context.Context, n int) (pairRound, error) {
	if g.broken {
		return pairRound{}, errLostWake
	}
	g.pp.abort.Store(false)
	g.cmd[0] <- n
	g.cmd[1] <- n
	wd := g.timer
	wd.Reset(g.watchdogFor(n)) // Go 1.23+ timers: Reset needs no drain
	defer wd.Stop()
	cancelled := false
	ctxDone := ctx.Done()
	for got := 0; got < 2; {
		select {
		case <-g.res:
			got++
		case <-ctxDone:
			g.pp.abort.Store(true)
			ctxDone = nil
			cancelled = true
		case <-wd.C:
			g.broken = true
			return pairRound{}, errLostWake
		}
	}
	if cancelled {
		return pairRound{}, ctx.Err()
	}
	r0, r1 := g.out[0], g.out[1]
	pr := pairRound{
		samples:   g.pp.samples[:2*n],
		ends:      g.pp.ends[:min(len(g.pp.ends), 2*n)],
		noSleep:   r0.noSleep + r1.noSleep,
		threadCsw: r0.csw + r1.csw,
		same:      r0.same + r1.same,
		cpus:      r0.cpus + r1.cpus,
	}
	if r0.csw < 0 || r1.csw < 0 {
		pr.threadCsw = -1
	}
	if r0.done != n || r1.done != n {
		return pr, fmt.Errorf("round stopped after %d/%d trips", min(r0.done, r1.done), n)
	}
	return pr, nil
}

// watchdogFor bounds a round of n trips: generous (a sleeping wake on a
// loaded VM is well under a millisecond), only there to turn a lost wake
// into an error instead of a hang.
func (g *goPair) watchdogFor(n int) time.Duration {
	if g.watchdog > 0 {
		return g.watchdog
	}
	return 60*time.Second + time.Duration(n)*(4*g.pp.gap+2*time.Millisecond)
}

// close lets the participants exit (their threads retire). Abandoned
// (broken) participants cannot be reached and stay blocked.
func (g *goPair) close() {
	if g.cmd[0] != nil && !g.broken {
		close(g.cmd[0])
		close(g.cmd[1])
		g.cmd[0], g.cmd[1] = nil, nil
	}
}

// cPair adapts the C reference to pairRunner. A cancelled ctx ends a C
// round within one round trip (cref.Pair.RoundContext). A plugin's C row
// is watched by its threads (internal/watch, internal/cref/cref_watch.h).
type cPair struct {
	p *cref.Pair
}

func (c cPair) round(ctx context.Context, n int) (pairRound, error) {
	r, err := c.p.RoundContext(ctx, n)
	if err != nil {
		return pairRound{}, err
	}
	return pairRound{samples: r.Samples, ends: r.Ends, noSleep: r.NoSleep, threadCsw: r.ThreadCsw, same: r.SameCPU, cpus: r.CPUSamples}, nil
}
func (c cPair) immediate() uint64 { return 0 }
func (c cPair) tids() [2]int32 {
	t := c.p.Tids()
	return [2]int32{int32(t[0]), int32(t[1])}
}
func (c cPair) close() { c.p.Close() }
