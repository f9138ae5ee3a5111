package herd

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/parkbench/parkbench/internal/anatomy"
	"github.com/parkbench/parkbench/internal/cref"
	"github.com/parkbench/parkbench/internal/futexsync"
	"github.com/parkbench/parkbench/internal/monoclock"
	"github.com/parkbench/parkbench/internal/osthread"
	"github.com/parkbench/parkbench/internal/schedacct"
)

// repeatSpec is one repeat of one configuration.
type repeatSpec struct {
	impl        implSpec
	n           int
	hold        time.Duration
	oneLoop     bool
	lockHeld    bool
	notifierCPU int   // -1: unpinned
	waiterCPUs  []int // nil: unpinned
	// trace: --anatomy (anatomy.go), a thread implementation.
	trace bool
}

// waiterState is one waiter's record of a repeat.
type waiterState struct {
	acq, rel     int64 // ns on the repeat's clock: hold start (right after the lock is held) and end (right before unlock)
	cpu          int   // CPU right after acquiring
	csw          int64 // RUSAGE_THREAD switches from right before its wait to right after its release; -1 unknown
	invol        int64 // the involuntary (preempted) part of csw
	waitReturns  int64 // times its Wait call returned
	acquisitions int64 // times it left the wait loop holding the mutex
	// The phases of csw (Linux, locked threads; -1 unknown): before the
	// notify (read by the notifier from /proc right before it notifies,
	// every waiter asleep), notify -> holding the mutex (read right after
	// acquiring, inside the hold), the rest is the hold and the release.
	cswNotify, cswAcq     int64
	involNotify, involAcq int64
	// preVol, preInvol: the thread's absolute counts right before its
	// wait, which the notifier's /proc reading is taken against.
	preVol, preInvol int64
}

// repeatResult is what one repeat measured, before it becomes a results.Round.
type repeatResult struct {
	t0          int64 // right before the notify, same clock as the waiters'
	notifierCPU int
	out         notifyOut
	procCsw     int64 // RUSAGE_SELF switches over the notify window
	notifierCsw int64 // the notifier's RUSAGE_THREAD switches over the window; -1 unknown
	waiters     []waiterState
	sleepCheck  string // how "every waiter is asleep" was established
	// trace is the herd count from the repeat's trace (--anatomy), with
	// the records the rings lost over the window.
	trace     *anatomy.HerdCount
	traceLost uint64
}

// repeatError is a failed repeat: lost wakeup, waiters that never slept, a
// failed pin.
type repeatError struct{ msg string }

func (e *repeatError) Error() string { return e.msg }

// Bounds of a repeat. The sleep bound covers thread start-up and the
// /proc polling; the watchdog covers notify -> last release.
func sleepBound(n int) time.Duration {
	return 10*time.Second + time.Duration(n)*10*time.Millisecond
}

var repeatWatchdog = func(n int, hold time.Duration) time.Duration {
	return 10*time.Second + time.Duration(n)*hold*10
}

// pollInterval is the pause between two polls of the count and of /proc.
const pollInterval = 50 * time.Microsecond

// settleTime is how long the sync variant waits after the count, since a
// goroutine's sleep cannot be observed.
func settleTime(n int) time.Duration {
	return 2*time.Millisecond + time.Duration(n)*20*time.Microsecond
}

// threadStateReadable reports whether a thread's scheduler state can be
// read here (osthread.State: /proc on Linux), which awaitSleeping needs.
var threadStateReadable = osthread.StateReadable

// awaitSleeping polls until every waiter thread is seen sleeping (state S)
// or the deadline passes (osthread.AwaitSleeping). A thread seen sleeping
// is not polled again: after it counted itself in under the mutex, the
// only place it can sleep is its wait (see Run's method).
func awaitSleeping(n int, tid func(int) int, deadline time.Time) error {
	return osthread.AwaitSleeping(n, tid, deadline, pollInterval)
}

// runRepeat runs one repeat. A cancelled ctx during the set-up still
// fires the notify (so no thread stays blocked), finishes the repeat and
// returns ctx's error.
func runRepeat(ctx context.Context, sp repeatSpec) (*repeatResult, error) {
	if sp.impl.c {
		return runRepeatC(ctx, sp)
	}
	return runRepeatGo(ctx, sp)
}

type slot struct {
	tid atomic.Int64
	w   waiterState
	pin error
	_   [64]byte // keep waiters' slots off each other's cache lines
}

func runRepeatGo(ctx context.Context, sp repeatSpec) (*repeatResult, error) {
	n := sp.n
	prim := sp.impl.newPrim()
	slots := make([]slot, n)
	hold := int64(sp.hold)
	// Both under the mutex.
	ready := false
	counted := 0
	var left atomic.Int64
	left.Store(int64(n))
	done := make(chan struct{})
	locked := !sp.impl.goroutines
	// finish lets the waiters exit once the repeat is over (see below).
	finish := make(chan struct{})
	var finishEv futexsync.Event
	defer func() {
		close(finish)
		if locked && futexsync.Supported {
			finishEv.Set()
		}
	}()

	waiter := func(i int) {
		s := &slots[i]
		if sp.waiterCPUs != nil && sp.waiterCPUs[i] >= 0 {
			s.pin = osthread.Pin(sp.waiterCPUs[i])
		}
		s.tid.Store(int64(osthread.Tid()))
		prim.Lock()
		counted++
		var pre osthread.Rusage
		if locked {
			pre, _ = osthread.ThreadUsage()
			s.w.preVol, s.w.preInvol = pre.Voluntary, pre.Involuntary
		}
		for !ready {
			prim.Wait()
			s.w.waitReturns++
		}
		s.w.acq = monoclock.Nanotime()
		s.w.cpu = osthread.CPU()
		s.w.acquisitions++
		s.w.cswAcq, s.w.involAcq = -1, -1
		if locked {
			// Inside the hold, which is timed from acq: it does not
			// lengthen the chain.
			if mid, err := osthread.ThreadUsage(); err == nil {
				s.w.cswAcq = mid.Switches() - pre.Switches()
				s.w.involAcq = mid.Involuntary - pre.Involuntary
			}
		}
		for monoclock.Nanotime()-s.w.acq < hold {
		}
		s.w.rel = monoclock.Nanotime()
		prim.Unlock()
		s.w.csw = -1
		if locked {
			post, _ := osthread.ThreadUsage()
			s.w.csw = post.Switches() - pre.Switches()
			s.w.invol = post.Involuntary - pre.Involuntary
		}
		if left.Add(-1) == 0 {
			close(done)
		}
		// Stay until the repeat is over: a thread that exits right after
		// its release would tear itself down (the runtime retires a locked
		// thread) on a CPU the next waiter may need, inside the measured
		// chain. A locked thread sleeps in a futex here (what the C
		// waiters do in sem_wait), not in the Go scheduler, whose park
		// path would hand off its P and wake other threads.
		if locked && futexsync.Supported {
			finishEv.Wait()
		} else {
			<-finish
		}
	}
	for i := 0; i < n; i++ {
		if locked {
			osthread.Go(func() { waiter(i) })
		} else {
			go waiter(i)
		}
	}

	type result struct {
		raw *repeatResult
		err error
	}
	resc := make(chan result, 1)
	notifier := func() {
		raw := &repeatResult{notifierCsw: -1}
		var setupErr error
		if sp.notifierCPU >= 0 {
			if err := osthread.Pin(sp.notifierCPU); err != nil {
				setupErr = err
			}
		}
		deadline := time.Now().Add(sleepBound(n))
		// 1. Every waiter counted in under the mutex.
		for setupErr == nil {
			prim.Lock()
			c := counted
			prim.Unlock()
			if c == n {
				break
			}
			if ctx.Err() != nil {
				setupErr = ctx.Err()
				break
			}
			if time.Now().After(deadline) {
				setupErr = fmt.Errorf("only %d of %d waiters started and counted in within %v", c, n, sleepBound(n))
				break
			}
			time.Sleep(pollInterval)
		}
		// 2. Every waiter seen asleep.
		if setupErr == nil {
			if locked && threadStateReadable() {
				raw.sleepCheck = "count+proc-state-S"
				setupErr = awaitSleeping(n, func(i int) int { return int(slots[i].tid.Load()) }, deadline)
			} else if locked {
				// No thread state to read (every OS but Linux): every
				// waiter counted itself in under the mutex, so the only
				// place it can block before the notify is its wait; the
				// settle delay gives it time to get there. Not seen
				// asleep in the kernel: the result says so.
				raw.sleepCheck = fmt.Sprintf("count+settle-%v (%s: no thread state to read; committed to wait, not seen asleep in the kernel)", settleTime(n), runtime.GOOS)
				time.Sleep(settleTime(n))
			} else {
				raw.sleepCheck = fmt.Sprintf("count+settle-%v (goroutines: no thread state)", settleTime(n))
				time.Sleep(settleTime(n))
			}
		}
		if setupErr == nil && ctx.Err() != nil {
			setupErr = ctx.Err()
		}
		// The waiters' switch counts right before the notify (every one
		// asleep): what they switched before it, apart from what came
		// after. Read before the windows below open.
		notifyCounts := make([][2]int64, n)
		for i := range notifyCounts {
			notifyCounts[i] = [2]int64{-1, -1}
			if setupErr == nil && locked {
				if v, iv, err := schedacct.ThreadSwitchesSplit(int(slots[i].tid.Load())); err == nil {
					notifyCounts[i] = [2]int64{v, iv}
				}
			}
		}
		// --anatomy: the events opened and enabled now, every waiter
		// asleep (their TIDs filter the kernel's records); a failure
		// still notifies, to release the waiters.
		var ht *herdTrace
		if setupErr == nil && sp.trace {
			tids := make([]int, n)
			for i := range tids {
				tids[i] = int(slots[i].tid.Load())
			}
			ht, setupErr = startTrace(tids)
		}
		defer ht.stop()
		// 3. Notify. Also on a failed set-up: it releases the waiters.
		watchdog := time.NewTimer(repeatWatchdog(n, sp.hold))
		defer watchdog.Stop()
		procPre, _ := osthread.ProcessUsage()
		var selfPre osthread.Rusage
		if locked {
			selfPre, _ = osthread.ThreadUsage()
		}
		if sp.lockHeld {
			prim.Lock()
			ready = true
			raw.notifierCPU = osthread.CPU()
			raw.t0 = monoclock.Nanotime()
			raw.out = notifyAs(prim, sp, true)
			prim.Unlock()
		} else {
			prim.Lock()
			ready = true
			prim.Unlock()
			raw.notifierCPU = osthread.CPU()
			raw.t0 = monoclock.Nanotime()
			raw.out = notifyAs(prim, sp, false)
		}
		// 4. Wait for the last release, at most the watchdog.
		select {
		case <-done:
		case <-watchdog.C:
			resc <- result{nil, &repeatError{fmt.Sprintf("herd: lost wakeup: %s with N=%d: %d of %d waiters had not released the mutex %v after the notify",
				sp.impl.name, n, left.Load(), n, repeatWatchdog(n, sp.hold))}}
			return
		}
		ht.stop()
		procPost, _ := osthread.ProcessUsage()
		raw.procCsw = procPost.Switches() - procPre.Switches()
		if locked {
			selfPost, _ := osthread.ThreadUsage()
			raw.notifierCsw = selfPost.Switches() - selfPre.Switches()
		}
		if setupErr != nil {
			resc <- result{nil, setupErr}
			return
		}
		raw.waiters = make([]waiterState, n)
		for i := range slots {
			if slots[i].pin != nil {
				resc <- result{nil, fmt.Errorf("pinning waiter %d: %w", i, slots[i].pin)}
				return
			}
			w := slots[i].w
			w.cswNotify, w.involNotify = -1, -1
			if nc := notifyCounts[i]; nc[0] >= 0 {
				w.cswNotify = nc[0] + nc[1] - w.preVol - w.preInvol
				w.involNotify = nc[1] - w.preInvol
			}
			raw.waiters[i] = w
		}
		if ht != nil {
			raw.trace, raw.traceLost = traceCount(ht, raw), ht.lost
		}
		resc <- result{raw, nil}
	}
	if locked {
		osthread.Go(notifier)
	} else {
		go notifier()
	}
	r := <-resc
	if r.err != nil {
		return nil, wrapSetup(sp, r.err)
	}
	return r.raw, nil
}

func wrapSetup(sp repeatSpec, err error) error {
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err
	}
	if _, ok := err.(*repeatError); ok {
		return err
	}
	return fmt.Errorf("herd %s N=%d: %w", sp.impl.name, sp.n, err)
}

// notifyAs is the measured call: one notify_all, or N notify_one.
func notifyAs(p primitive, sp repeatSpec, held bool) notifyOut {
	if !sp.oneLoop {
		return p.NotifyAll(held)
	}
	out := notifyOut{}
	for i := 0; i < sp.n; i++ {
		out.add(p.NotifyOne(held))
	}
	return out
}

func runRepeatC(ctx context.Context, sp repeatSpec) (*repeatResult, error) {
	n := sp.n
	h, err := cref.StartHerd(cref.HerdConfig{
		N: n, HoldNs: int64(sp.hold), OneLoop: sp.oneLoop, LockHeld: sp.lockHeld,
		NotifierCPU: sp.notifierCPU, WaiterCPUs: sp.waiterCPUs,
	})
	if err != nil {
		return nil, fmt.Errorf("herd pthread N=%d: %w", n, err)
	}
	deadline := time.Now().Add(sleepBound(n))
	var setupErr error
	for {
		if h.Counted() == n {
			break
		}
		if ctx.Err() != nil {
			setupErr = ctx.Err()
			break
		}
		if time.Now().After(deadline) {
			setupErr = fmt.Errorf("only %d of %d C waiters counted in within %v", h.Counted(), n, sleepBound(n))
			break
		}
		time.Sleep(pollInterval)
	}
	if setupErr == nil {
		setupErr = awaitSleeping(n, h.Tid, deadline)
	}
	if setupErr == nil && ctx.Err() != nil {
		setupErr = ctx.Err()
	}
	var ht *herdTrace
	if setupErr == nil && sp.trace {
		tids := make([]int, n)
		for i := range tids {
			tids[i] = h.Tid(i)
		}
		ht, setupErr = startTrace(tids)
	}
	defer ht.stop()
	// The Go side blocks in one cgo call for the whole notify window; the
	// C notifier measures it.
	h.Fire()
	ok := h.Wait(repeatWatchdog(n, sp.hold) + time.Second)
	ht.stop()
	if !ok {
		return nil, &repeatError{fmt.Sprintf("herd: lost wakeup: pthread with N=%d: the C waiters had not all finished %v after the notify",
			n, repeatWatchdog(n, sp.hold))}
	}
	res := h.Result()
	h.Close()
	if setupErr != nil {
		return nil, wrapSetup(sp, setupErr)
	}
	if res.NotifierPinE != 0 {
		return nil, fmt.Errorf("herd pthread: pinning the notifier: errno %d", res.NotifierPinE)
	}
	raw := &repeatResult{
		t0: res.T0Ns, notifierCPU: res.NotifierCPU, out: notifyOut{-1, -1, -1},
		procCsw: res.ProcCsw, notifierCsw: res.NotifierCsw,
		sleepCheck: "count+proc-state-S (C tids)",
		waiters:    make([]waiterState, n),
	}
	for i, w := range res.Waiters {
		if w.PinErr != 0 {
			return nil, fmt.Errorf("herd pthread: pinning waiter %d: errno %d", i, w.PinErr)
		}
		raw.waiters[i] = waiterState{acq: w.AcqNs, rel: w.RelNs, cpu: w.CPU, csw: w.Csw, invol: w.Invol, waitReturns: w.WaitReturns, acquisitions: w.Acquisitions}
	}
	if ht != nil {
		raw.trace, raw.traceLost = traceCount(ht, raw), ht.lost
	}
	return raw, nil
}

// traceCount joins a repeat's trace with its clock readings (waiter i's
// TID is the i-th of the trace's).
func traceCount(ht *herdTrace, raw *repeatResult) *anatomy.HerdCount {
	acq := make([]int64, len(raw.waiters))
	for i, w := range raw.waiters {
		acq[i] = w.acq
	}
	c := ht.count(raw.t0, acq)
	return &c
}
