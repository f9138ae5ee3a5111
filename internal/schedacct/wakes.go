package schedacct

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime/trace"

	xtrace "golang.org/x/exp/trace"
)

// ParticipantCategory is the runtime/trace log category a measured
// goroutine announces itself with (MarkParticipant): Wakes counts only the
// wakes of one participant by another, never the controller's commands or
// the runtime's own goroutines.
const ParticipantCategory = "parkbench.participant"

// MarkParticipant logs the calling goroutine as a participant when a
// runtime trace is running (nothing otherwise: it is one load).
func MarkParticipant() {
	if trace.IsEnabled() {
		trace.Log(context.Background(), ParticipantCategory, "")
	}
}

// Wakes is what happened to each wake of a participant goroutine by
// another inside a traced window: a goroutine leaving GoWaiting for
// GoRunnable on the waker's P (Go runtime proc.go ready: runqput(pp, gp,
// next=true), then wakep), and then its first GoRunning.
type Wakes struct {
	// Total: wakes seen (unblock events of a participant by a
	// participant).
	Total int
	// SameP: the woken goroutine ran on the waker's P, on a thread that
	// had not stopped since the wake: it sat in runnext (or the local
	// queue) and ran when the waker blocked; no thread was woken for it.
	SameP int
	// OtherP: it ran on another P whose thread was already running
	// (a spinning M stole it from the waker's runnext or queue).
	OtherP int
	// ThreadWoken: it ran on a thread that started running a P
	// (ProcIdle -> ProcRunning) after the wake: wakep's startm had to wake
	// an idle M (futexwakeup on its note) or start a new one, or a thread
	// back from a syscall took the P.
	ThreadWoken int
	// NeverRan: woken but not running before the window closed.
	NeverRan int
}

// Share is n / Total (0 with no wakes).
func (w Wakes) Share(n int) float64 {
	if w.Total == 0 {
		return 0
	}
	return float64(n) / float64(w.Total)
}

// wakeParser follows the events Wakes needs.
type wakeParser struct {
	w            Wakes
	participants map[xtrace.GoID]bool
	pending      map[xtrace.GoID]pendingWake
	// started is each thread's last ProcIdle -> ProcRunning.
	started map[xtrace.ThreadID]xtrace.Time
}

type pendingWake struct {
	p xtrace.ProcID
	t xtrace.Time
}

func newWakeParser() *wakeParser {
	return &wakeParser{participants: map[xtrace.GoID]bool{}, pending: map[xtrace.GoID]pendingWake{}, started: map[xtrace.ThreadID]xtrace.Time{}}
}

func (p *wakeParser) add(ev xtrace.Event) {
	switch ev.Kind() {
	case xtrace.EventLog:
		if ev.Log().Category == ParticipantCategory {
			p.participants[ev.Goroutine()] = true
		}
	case xtrace.EventStateTransition:
		st := ev.StateTransition()
		switch st.Resource.Kind {
		case xtrace.ResourceProc:
			if from, to := st.Proc(); from == xtrace.ProcIdle && to == xtrace.ProcRunning {
				p.started[ev.Thread()] = ev.Time()
			}
		case xtrace.ResourceGoroutine:
			g := st.Resource.Goroutine()
			from, to := st.Goroutine()
			switch {
			case from == xtrace.GoWaiting && to == xtrace.GoRunnable:
				// The event is the waker's: its goroutine and P.
				if p.participants[g] && p.participants[ev.Goroutine()] {
					p.w.Total++
					p.pending[g] = pendingWake{p: ev.Proc(), t: ev.Time()}
				}
			case from == xtrace.GoRunnable && to == xtrace.GoRunning:
				w, ok := p.pending[g]
				if !ok {
					return
				}
				delete(p.pending, g)
				// A thread that started after the wake was woken (or
				// made) for it, whichever P it took; the waker's own
				// thread was running at the wake, so a wakee that runs
				// there without the thread having stopped is SameP.
				switch {
				case p.started[ev.Thread()] > w.t:
					p.w.ThreadWoken++
				case ev.Proc() == w.p:
					p.w.SameP++
				default:
					p.w.OtherP++
				}
			}
		}
	}
}

func (p *wakeParser) result() Wakes {
	w := p.w
	w.NeverRan = len(p.pending)
	return w
}

// TraceWakes is Trace that also classifies the participants' wakes (the
// participants call MarkParticipant inside the window).
func TraceWakes(fn func() error) (Counts, Wakes, error) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		return Counts{}, Wakes{}, fmt.Errorf("%w: %v", ErrTracing, err)
	}
	ferr := fn()
	trace.Stop()
	if ferr != nil {
		return Counts{}, Wakes{}, ferr
	}
	return CountWakes(&buf)
}

// CountWakes parses a runtime trace (Go 1.22+ format) once for Count's
// figures and Wakes.
func CountWakes(r io.Reader) (Counts, Wakes, error) {
	wp := newWakeParser()
	c, err := count(r, wp.add)
	return c, wp.result(), err
}
