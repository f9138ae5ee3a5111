// Package schedacct counts what the Go scheduler does around parked threads:
// the runtime trace's P steals (sysmon's retake of a P whose goroutine sits in
// a system call), syscalls that came back without their P, preemptions and
// voluntary yields (Trace), and, on Linux, each thread's context switches
// split by the thread's role: the measured participants, sysmon, and the
// runtime's other Ms (Snapshot).
//
// Why it exists: a goroutine locked to its thread that waits in FUTEX_WAIT
// through syscall.Syscall never passes through the scheduler, so its P's
// schedtick stays frozen. After forcePreemptNS (10 ms) sysmon's retake
// treats it as a long-running goroutine and takes its P whenever it finds it
// in a syscall, on every sysmon tick; the P it takes back on exitsyscall has
// the same stale tick, so the steals go on, and each steal resets sysmon's
// back-off to 20 µs (Go runtime/proc.go: retake, sysmon, exitsyscall). See
// docs/scheduler.md.
package schedacct

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/trace"

	xtrace "golang.org/x/exp/trace"
)

// Counts is what the scheduler did inside a traced window.
type Counts struct {
	// Steals: a P taken from a goroutine in a system call by another
	// thread (trace ProcSteal; in Go 1.26 only sysmon's retake does
	// this, outside stop-the-world).
	Steals int
	// LostP: system calls that returned without their P (the goroutine
	// went through exitsyscall's slow path: another idle P, or the run
	// queue).
	LostP int
	// Syscalls: system calls entered through entersyscall (Syscall, cgo).
	Syscalls int
	// Preempts: goroutines stopped by preemption (sysmon's preemptone
	// after 10 ms on one schedtick, or a stop-the-world).
	Preempts int
	// Yields: runtime.Gosched calls.
	Yields int
	// ProcStarts: a thread started running on a P (an M woken to run a
	// goroutine or to spin, or one coming back from a syscall without
	// its P).
	ProcStarts int
	// StealThreads counts steals by the thread that did them (the trace's
	// thread ids are the OS thread ids on Linux): sysmon has no P, so the
	// thread that steals is sysmon.
	StealThreads map[int64]int
	// LostPThreads counts LostP by the thread whose syscall lost its P
	// (the goroutine's M: for a locked goroutine, its own thread).
	LostPThreads map[int64]int
	// PreemptThreads counts Preempts by the preempted goroutine's thread.
	PreemptThreads map[int64]int
}

// Stealer returns the thread that did the most steals (sysmon), or 0.
func (c Counts) Stealer() int64 {
	var best int64
	for tid, n := range c.StealThreads {
		if best == 0 || n > c.StealThreads[best] {
			best = tid
		}
	}
	return best
}

// ErrTracing is returned when another runtime trace is already running.
var ErrTracing = errors.New("schedacct: a runtime trace is already running")

// Trace runs fn with the runtime trace on and counts the scheduler's events.
// Only one trace can run in a process at a time. The trace costs time on
// every scheduler event (tens of ns per syscall): count with it, do not
// measure latency under it.
func Trace(fn func() error) (Counts, error) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		return Counts{}, fmt.Errorf("%w: %v", ErrTracing, err)
	}
	ferr := fn()
	trace.Stop()
	if ferr != nil {
		return Counts{}, ferr
	}
	return Count(&buf)
}

// Count parses a runtime trace (Go 1.22+ format) and counts its events.
func Count(r io.Reader) (Counts, error) { return count(r, nil) }

// count is Count, every event also handed to also (if not nil).
func count(r io.Reader, also func(xtrace.Event)) (Counts, error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return Counts{}, fmt.Errorf("schedacct: %w", err)
	}
	c := Counts{StealThreads: map[int64]int{}, LostPThreads: map[int64]int{}, PreemptThreads: map[int64]int{}}
	for {
		ev, err := tr.ReadEvent()
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return c, fmt.Errorf("schedacct: %w", err)
		}
		if ev.Kind() == xtrace.EventStateTransition {
			c.add(ev)
		}
		if also != nil {
			also(ev)
		}
	}
}

func (c *Counts) add(ev xtrace.Event) {
	st := ev.StateTransition()
	switch st.Resource.Kind {
	case xtrace.ResourceProc:
		from, to := st.Proc()
		switch {
		case from == xtrace.ProcIdle && to == xtrace.ProcRunning:
			c.ProcStarts++
		case from == xtrace.ProcRunning && to == xtrace.ProcIdle && st.Resource.Proc() != ev.Proc():
			// Stopped by a thread that does not own it: a steal
			// (the parser turns ProcSteal into this).
			c.Steals++
			c.StealThreads[int64(ev.Thread())]++
		}
	case xtrace.ResourceGoroutine:
		from, to := st.Goroutine()
		switch {
		case from == xtrace.GoRunning && to == xtrace.GoSyscall:
			c.Syscalls++
		case from == xtrace.GoSyscall && to == xtrace.GoRunnable:
			c.LostP++
			c.LostPThreads[int64(ev.Thread())]++
		case from == xtrace.GoRunning && to == xtrace.GoRunnable:
			switch st.Reason {
			case "preempted":
				c.Preempts++
				c.PreemptThreads[int64(ev.Thread())]++
			case "runtime.Gosched":
				c.Yields++
			}
		}
	}
}
