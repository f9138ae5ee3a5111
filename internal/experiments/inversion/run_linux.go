package inversion

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/parkbench/parkbench/internal/experiments/driver"
	"github.com/parkbench/parkbench/internal/futex"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/undo"
)

// The three roles, indexes into session's arrays.
const (
	low = iota
	medium
	high
	nRoles
)

var prios = [nRoles]uint32{low: PrioLow, medium: PrioMedium, high: PrioHigh}

var roleNames = [nRoles]string{low: "low", medium: "medium", high: "high"}

// setFIFO puts thread tid (0: the caller) in SCHED_FIFO at prio, with
// SCHED_RESET_ON_FORK: a thread it creates starts at SCHED_OTHER (the Go
// runtime creates Ms from its template thread for locked threads anyway,
// runtime/proc.go newm; this covers cgo's and any other).
func setFIFO(tid int, prio uint32) error {
	return unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: unix.SCHED_FIFO,
		Flags: unix.SCHED_FLAG_RESET_ON_FORK, Priority: prio}, 0)
}

// schedOther is SCHED_OTHER (SCHED_NORMAL, include/uapi/linux/sched.h),
// which x/sys/unix does not export.
const schedOther = 0

// setOther puts thread tid (0: the caller) back to SCHED_OTHER, nice 0.
func setOther(tid int) error {
	return unix.SchedSetAttr(tid, &unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: schedOther}, 0)
}

func (h host) options() map[string]string {
	return map[string]string{
		"cpu":                 fmt.Sprint(h.cpu),
		"watchdog_cpu":        fmt.Sprint(h.watchdogCPU),
		"sched_rt_runtime_us": fmt.Sprint(h.rtRuntimeUs),
		"sched_rt_period_us":  fmt.Sprint(h.rtPeriodUs),
	}
}

// word is a futex word on its own cache line.
type word struct {
	atomic.Int32
	_ [60]byte
}

// session is one implementation's run: three RT threads on one CPU and
// the coordinator, which is also the watchdog, on another.
type session struct {
	lk        mutex
	holdIters int
	medium    time.Duration
	cpu       int

	arm     [nRoles]word // round number each thread may arm for (futex)
	start   [nRoles]word // round number each thread may start (futex)
	done    word         // threads finished with the round (futex)
	started atomic.Int32 // the round low has started (the watchdog's clock)
	startAt atomic.Int64 // when low started it (monoclock ns): the arm chain's end
	highAt  atomic.Int64 // when high's Gosched returned (monoclock ns)
	stop    atomic.Bool  // leave at the next start word
	abort   atomic.Bool  // cut the hold and the spin short (watchdog, interrupt)
	tids    [nRoles]atomic.Int32

	wait, held atomic.Int64 // this round's figures, from high and low
	switched   atomic.Bool  // medium was switched out during its spin
	sink       atomic.Uint64
	exited     sync.WaitGroup
}

// work is the critical section's unit: a dependent float add and multiply
// (as parkbench lock's), iters times, checking abort every 4096.
func (s *session) work(iters int) {
	v, x := 1.0, 1.0
	for i := 0; i < iters; i++ {
		x += v
		x *= 1.0000001
		v = x
		if i&4095 == 4095 && s.abort.Load() {
			break
		}
	}
	s.sink.Store(math.Float64bits(x))
}

// calibrate measures work's cost on the measured CPU (the fastest of 7
// batches: a batch that lost the CPU is only slower) and returns ns per
// iteration.
func calibrate(cpu int) (float64, error) {
	res := make(chan error, 1)
	var ns float64
	osthread.Go(func() {
		if err := osthread.Pin(cpu); err != nil {
			res <- err
			return
		}
		s := new(session)
		const n = 200_000
		ns = math.Inf(1)
		for i := 0; i < 7; i++ {
			t0 := monoclock.Nanotime()
			s.work(n)
			ns = min(ns, float64(monoclock.Nanotime()-t0)/n)
		}
		res <- nil
	})
	if err := <-res; err != nil {
		return 0, err
	}
	return ns, nil
}

// waitStart sleeps until the start word of role reaches round.
func (s *session) waitStart(role int, round int32) { s.waitWord(&s.start[role], round) }

// waitWord sleeps until w reaches round (or the session stops).
func (s *session) waitWord(w *word, round int32) {
	for {
		v := w.Load()
		if v >= round || s.stop.Load() {
			return
		}
		futex.Wait(&w.Int32, v, nil)
	}
}

// release lets role start round. FUTEX_WAKE never blocks, so it goes
// through RawSyscall (futex.WakeRaw): the RT thread that wakes keeps its
// P. Through Syscall the runtime would see it in a system call while the
// woken higher-priority thread preempts it, sysmon could retake its P, and
// its return would then look for one under sched.lock, which a
// SCHED_OTHER thread of the runtime on the other, loaded CPU may hold:
// milliseconds inside low's critical section that no lock causes.
func (s *session) release(role int, round int32) {
	s.start[role].Store(round)
	futex.WakeRaw(&s.start[role].Int32)
}

func (s *session) finish() {
	s.done.Add(1)
	futex.WakeRaw(&s.done.Int32)
}

// armNext is the arm chain: medium arms first, then high, then low, who
// starts the round.
var armNext = [nRoles]int{medium: high, high: low, low: -1}

// armRound is each thread's step before a round: runtime.Gosched, then
// pass the arm on (armNext). Why: the runtime's sysmon preempts a
// goroutine that has run on one schedtick for 10 ms (runtime/proc.go
// retake, forcePreemptNS), and a locked goroutine that only blocks in futex
// system calls keeps its P through them (exitsyscall's fast path), so its
// schedtick never moves: every 10 ms of wall time sysmon either preempts
// it (running) or takes its P (in a system call). A preempted locked
// goroutine sleeps until an M of the other, SCHED_OTHER CPU hands it a P
// (stoplockedm/startlockedm), and a thread whose P was taken needs one
// back on its way out of the system call. Traced with sched_switch and
// sched_pi_setprio (pi-futex, 300 rounds, load 13): in 11 of 300 rounds
// low, boosted to high's priority inside its critical section, woke two
// runtime threads on CPU 0 and slept 0.5-3.9 ms while medium spun: the
// PI lock's p99 wait was 1.87 ms for a 100 µs section. Gosched goes
// through schedule(), which moves the schedtick, so sysmon's 10 ms start
// at or after this point. The cost (a hand-off through another M, which
// on a loaded machine can take milliseconds) falls before the round,
// outside every figure; the chain orders the hand-offs so that the
// threads on the critical path arm last (low right before its section,
// high before low), and low starts the round itself: no wake-up of the
// coordinator, on the loaded CPU, sits inside anyone's window.
func (s *session) armRound(role int, round int32) {
	s.waitWord(&s.arm[role], round)
	if s.stop.Load() {
		return
	}
	runtime.Gosched()
	if role == high {
		s.highAt.Store(monoclock.Nanotime())
	}
	if next := armNext[role]; next >= 0 {
		s.arm[next].Store(round)
		futex.WakeRaw(&s.arm[next].Int32)
	}
}

// thread starts role's thread: locked to a new OS thread, pinned to the
// measured CPU, at its SCHED_FIFO priority, looping over rounds. Every exit
// puts it back to SCHED_OTHER first, and it exits locked, so the runtime
// retires the thread rather than reuse it (osthread.Go).
func (s *session) thread(role int, ready chan<- error) {
	s.exited.Add(1)
	osthread.Go(func() {
		defer s.exited.Done()
		tid := unix.Gettid()
		s.tids[role].Store(int32(tid))
		if err := osthread.Pin(s.cpu); err != nil {
			ready <- fmt.Errorf("pinning %s to CPU %d: %w", roleNames[role], s.cpu, err)
			return
		}
		defer func() { _ = setOther(0) }()
		if err := setFIFO(0, prios[role]); err != nil {
			ready <- fmt.Errorf("SCHED_FIFO %d for %s: %w", prios[role], roleNames[role], err)
			return
		}
		ready <- nil
		for round := int32(1); ; round++ {
			s.armRound(role, round)
			if role != low { // low starts the round when it is armed
				s.waitStart(role, round)
			}
			if s.stop.Load() {
				return
			}
			switch role {
			case low:
				s.startAt.Store(monoclock.Nanotime())
				s.started.Store(round)
				s.lk.Lock(uint32(tid))
				t0 := monoclock.Nanotime()
				// high preempts us here (same CPU, higher priority).
				s.release(high, round)
				s.work(s.holdIters)
				s.held.Store(monoclock.Nanotime() - t0)
				s.lk.Unlock()
			case high:
				// medium cannot run before we block: it is below us on
				// our CPU. Once we block, the kernel picks low (boosted to
				// our priority by a PI lock) or medium (above low without
				// one).
				s.release(medium, round)
				t0 := monoclock.Nanotime()
				s.lk.Lock(uint32(tid))
				s.wait.Store(monoclock.Nanotime() - t0)
				s.lk.Unlock()
			case medium:
				before, _ := osthread.ThreadUsage()
				end := monoclock.Nanotime() + s.medium.Nanoseconds()
				for monoclock.Nanotime() < end && !s.abort.Load() {
				}
				after, _ := osthread.ThreadUsage()
				s.switched.Store(after.Sub(before).Switches() > 0)
			}
			s.finish()
		}
	})
}

// slowArm: high's window (from its Gosched to the end of its wait) holds
// low's Gosched hand-off; one longer than this leaves less than half of
// sysmon's 10 ms to the round: such rounds are counted (sample.slowArms)
// and warned about.
const slowArm = 5 * time.Millisecond

// armTimeout bounds the arm phase (three Gosched hand-offs, each through
// a runtime thread of the other CPU, which a loaded machine may keep
// waiting for tens of milliseconds). Nothing spins at RT priority then:
// the RT threads are asleep or handing off.
const armTimeout = 5 * time.Second

// awaitRound waits until the three threads are done with round, checking
// ctx and the watchdog every millisecond: the arm phase gets armTimeout,
// the round itself (from low's start, s.started) timeout; past either it
// aborts the round.
func (s *session) awaitRound(ctx context.Context, round int32, timeout time.Duration) error {
	armDeadline := time.Now().Add(armTimeout)
	var roundDeadline time.Time
	for {
		d := s.done.Load()
		if d == nRoles {
			return nil
		}
		now := time.Now()
		if roundDeadline.IsZero() && s.started.Load() >= round {
			roundDeadline = now.Add(timeout)
		}
		late := ""
		switch {
		case roundDeadline.IsZero() && now.After(armDeadline):
			late = fmt.Sprintf("was not armed in %v (a Gosched hand-off never came back)", armTimeout)
		case !roundDeadline.IsZero() && now.After(roundDeadline):
			late = fmt.Sprintf("did not finish in %v (%d of 3 threads done)", timeout, d)
		}
		if ctx.Err() != nil || late != "" {
			s.abort.Store(true)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%w: round %d %s; aborted and put back to SCHED_OTHER", errWatchdog, round, late)
		}
		ts := unix.NsecToTimespec(int64(time.Millisecond))
		futex.Wait(&s.done.Int32, d, &ts)
	}
}

// errWatchdog is a round that did not finish in time.
var errWatchdog = errors.New("watchdog")

// measure runs one implementation: start the three threads, run the
// rounds from a coordinator pinned to the watchdog CPU, and tear down.
func (p *invPlan) measure(ctx context.Context, im impl) (sample, error) {
	nsPerIter, err := calibrate(p.host.cpu)
	if err != nil {
		return sample{}, fmt.Errorf("calibrating the work on CPU %d: %w", p.host.cpu, err)
	}
	lk, err := im.newLock()
	if err != nil {
		return sample{}, err
	}
	s := &session{lk: lk, medium: p.o.Medium, cpu: p.host.cpu,
		holdIters: max(1, int(float64(p.o.Hold.Nanoseconds())/nsPerIter))}
	type result struct {
		s   sample
		err error
	}
	res := make(chan result, 1)
	before, okBefore := cpuSteal(p.host.cpu)
	osthread.Go(func() {
		var r result
		defer func() { res <- r }()
		if err := osthread.Pin(p.host.watchdogCPU); err != nil {
			r.err = fmt.Errorf("pinning the watchdog to CPU %d: %w", p.host.watchdogCPU, err)
			return
		}
		r.s, r.err = s.coordinate(ctx, p.o.Repeats, p.o.Medium+p.o.Hold)
	})
	r := <-res
	if r.err == nil {
		lk.Free()
	}
	r.s.steal = -1
	if after, ok := cpuSteal(p.host.cpu); ok && okBefore && after >= before {
		r.s.steal = after - before
	}
	return r.s, r.err
}

// coordinate starts the threads, runs the rounds and always tears down:
// stop and abort, wake every thread, put every thread's TID back to
// SCHED_OTHER from here (the threads do it themselves too; this covers a
// thread stuck in a lock), and wait briefly for them to exit.
func (s *session) coordinate(ctx context.Context, repeats int, roundLen time.Duration) (out sample, err error) {
	defer func() {
		s.stop.Store(true)
		s.abort.Store(true)
		for role := range nRoles {
			s.arm[role].Store(math.MaxInt32)
			futex.WakeRaw(&s.arm[role].Int32)
			s.release(role, math.MaxInt32)
			if tid := s.tids[role].Load(); tid != 0 {
				_ = setOther(int(tid))
			}
		}
		exited := make(chan struct{})
		go func() { s.exited.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			if err == nil {
				err = errors.New("the RT threads did not exit within 5 s of the end (put back to SCHED_OTHER)")
			}
		}
	}()
	// The threads' SCHED_FIFO and the isolation's affinities are
	// registered with internal/undo too, so that SIGINT during a round
	// that cannot return (and the watchdog's end) put them back as this
	// function's own way out does.
	defer undo.Push(func() {
		for role := range nRoles {
			if tid := s.tids[role].Load(); tid != 0 {
				_ = setOther(int(tid))
			}
		}
	})()
	ready := make(chan error, nRoles)
	for role := range nRoles {
		s.thread(role, ready)
	}
	for range nRoles {
		if e := <-ready; e != nil && err == nil {
			err = e
		}
	}
	if err != nil {
		if errors.Is(err, unix.EPERM) {
			return out, driver.Bad("host", "inversion cannot run here: %v; the kernel refused SCHED_FIFO (RT group scheduling with no RT budget for this cgroup, or a seccomp profile?)", err)
		}
		return out, err
	}
	keep := []int{unix.Gettid()}
	for role := range nRoles {
		keep = append(keep, int(s.tids[role].Load()))
	}
	iso := isolate(s.cpu, keep)
	defer undo.Push(iso.restore)()
	// A round lasts about medium + hold; the watchdog allows that twice
	// plus half a second (a loaded machine) before it aborts the round.
	timeout := 2*roundLen + 500*time.Millisecond
	for round := int32(1); round <= int32(repeats); round++ {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		s.done.Store(0)
		// medium arms, then high, then low, who starts the round (armRound)
		s.arm[medium].Store(round)
		futex.WakeRaw(&s.arm[medium].Int32)
		if err := s.awaitRound(ctx, round, timeout); err != nil {
			return out, err
		}
		if s.startAt.Load()-s.highAt.Load() > slowArm.Nanoseconds() {
			out.slowArms++
		}
		out.waits = append(out.waits, s.wait.Load())
		out.held = append(out.held, s.held.Load())
		if s.switched.Load() {
			out.switched++
		}
		// Half the time off RT: the CPU's other tasks run, and the run
		// stays far inside the RT throttling budget.
		time.Sleep(roundLen)
	}
	return out, nil
}
