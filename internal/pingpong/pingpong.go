// Package pingpong is E12's measured loop (internal/experiments/latency):
// two participants wake each other in turn through a mechanism, and each
// round hands back its raw figures (Round). The Go pair (Open) runs it on
// two goroutines locked to their OS threads for their whole life
// (osthread.Go), or on two plain goroutines; the C reference's pair
// (internal/cref) runs the same protocol in C threads (C). Both are a
// Runner.
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
package pingpong

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// slot is one side's mailbox, alone on its cache line (the wake moves one
// line between cores, as in the C reference).
type slot struct {
	flag  atomic.Int32 // 1: a wake is pending for this side (a futex word for the twins)
	cpu   atomic.Int32 // waker's CPU at a sampled wake (unpinned runs)
	stamp atomic.Int64 // waker's monotonic ns; -1 asks the side to stop
	// park is spin-1line's should-park word (OneLineSpin), on the flag's
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

// plain is what a mechanism without parkers of its own embeds: nothing to
// set up on the participant's thread, no park calls counted.
type plain struct{ pp *pingpong }

func (plain) setup(int)         {}
func (plain) immediate() uint64 { return 0 }

// A Mechanism builds an implementation's wait and wake on a pair's shared
// state: Backend, Lot, GoFutex, GoSpin, OneLineSpin, and the goroutine-only
// MutexSema, RWMutexSema and WaitGroup.
type Mechanism func(*pingpong) mechanism

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
			out[i] = ^out[i] // marked: a wait that did not sleep (Round.Samples)
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

// Runner runs rounds on two persistent participants: the Go pair (Open)
// or the C reference's (C).
type Runner interface {
	// Round runs n round trips and returns both sides' figures, with the
	// 2n samples (valid until the next round).
	Round(ctx context.Context, n int) (Round, error)
	// Immediate is the parkers' own count of park calls that returned
	// without blocking (WaitCounter, or the lot's ParkInvalid returns),
	// both sides, so far; 0 where not counted. Read between rounds only.
	Immediate() uint64
	// Tids are the participants' kernel thread ids (side 0, side 1).
	Tids() [2]int32
	Close()
}

// Round is one round's raw figures, both sides.
type Round struct {
	// Samples are the 2n one-way latencies (ns); the sample of a wait
	// that did not sleep is stored as ^v (negative), in both runners
	// (cref.c run_round).
	Samples []int64
	Ends    []int64 // --anatomy: the woken side's clock per sample
	NoSleep uint64  // waits that did not sleep
	// ThreadCsw is both participants' own context switches (-1: not
	// read, as on plain goroutines).
	ThreadCsw int64
	// Same of CPUs sampled wakes (every 16th; unpinned only) had both
	// sides on one CPU.
	Same, CPUs int64
}

// Config is a Go pair's setup.
type Config struct {
	// Capacity is the most round trips a round may have (the samples'
	// buffer is made once, before the first round).
	Capacity int
	// Gap is the waker's idle sleep before each wake (0: none).
	Gap time.Duration
	// SampleCPU: every 16th wake records whether both sides share a CPU
	// (never on goroutines: not pinned and not locked, there is no CPU
	// to compare).
	SampleCPU bool
	// Ends keeps each sample's woken-side clock reading (Round.Ends).
	Ends bool
	// CPUs are the sides' CPUs (-1: unpinned).
	CPUs [2]int
	// Goroutines runs the sides on plain goroutines (newGoPair).
	Goroutines bool
}

// Open starts a Go pair that waits and wakes through mech.
func Open(mech Mechanism, c Config) (Runner, error) {
	pp := &pingpong{base: monoclock.Nanotime(), gap: c.Gap, sampleCPU: c.SampleCPU && !c.Goroutines, samples: make([]int64, 2*c.Capacity)}
	if c.Ends {
		pp.ends = make([]int64, 2*c.Capacity)
	}
	g, err := newGoPair(mech(pp), pp, c.CPUs, c.Goroutines)
	if err != nil {
		return nil, err
	}
	return g, nil
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
	for me := 0; me < 2; me++ {
		osthread.Start(goroutines, func() {
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
		g.Close()
		return nil, first
	}
	return g, nil
}

func (g *goPair) Immediate() uint64 { return g.pp.m.immediate() }

func (g *goPair) Tids() [2]int32 { return g.pp.tid }

// Round hands both participants n trips and waits for both. On ctx
// cancellation it asks side 0 to stop (at most 1024 trips later) and still
// waits, so the threads are never left inside a round.
func (g *goPair) Round(ctx context.Context, n int) (Round, error) {
	if g.broken {
		return Round{}, errLostWake
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
			return Round{}, errLostWake
		}
	}
	if cancelled {
		return Round{}, ctx.Err()
	}
	r0, r1 := g.out[0], g.out[1]
	pr := Round{
		Samples:   g.pp.samples[:2*n],
		Ends:      g.pp.ends[:min(len(g.pp.ends), 2*n)],
		NoSleep:   r0.noSleep + r1.noSleep,
		ThreadCsw: r0.csw + r1.csw,
		Same:      r0.same + r1.same,
		CPUs:      r0.cpus + r1.cpus,
	}
	if r0.csw < 0 || r1.csw < 0 {
		pr.ThreadCsw = -1
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

// Close lets the participants exit (their threads retire). Abandoned
// (broken) participants cannot be reached and stay blocked.
func (g *goPair) Close() {
	if g.cmd[0] != nil && !g.broken {
		close(g.cmd[0])
		close(g.cmd[1])
		g.cmd[0], g.cmd[1] = nil, nil
	}
}
