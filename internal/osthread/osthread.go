// Package osthread is parkbench's thread model: a participant of an
// experiment is a goroutine locked to its OS thread for its whole life, and
// this package starts such threads and reads and sets what the OS knows about
// them (thread id, CPU affinity, current CPU, per-thread context switches,
// scheduler state). Per-OS code lives in osthread_<os>.go; where the OS has no
// such interface the functions return ErrUnsupported.
package osthread

import (
	"errors"
	"runtime"
)

// ErrUnsupported is returned where this OS has no such interface.
var ErrUnsupported = errors.New("not supported on " + runtime.GOOS)

// Rusage is the part of getrusage parkbench uses.
type Rusage struct {
	Voluntary   int64 // ru_nvcsw: the thread gave up the CPU (slept)
	Involuntary int64 // ru_nivcsw: the thread was preempted
	UserNs      int64
	SysNs       int64
}

// Switches is voluntary + involuntary context switches.
func (r Rusage) Switches() int64 { return r.Voluntary + r.Involuntary }

// Sub returns r - o.
func (r Rusage) Sub(o Rusage) Rusage {
	return Rusage{r.Voluntary - o.Voluntary, r.Involuntary - o.Involuntary, r.UserNs - o.UserNs, r.SysNs - o.SysNs}
}

// Go runs fn on a new goroutine locked to its own OS thread for fn's whole
// life. When fn returns, the goroutine exits still locked, so the runtime
// retires the thread instead of reusing it: an affinity set inside fn never
// leaks into another goroutine.
func Go(fn func()) {
	go func() {
		runtime.LockOSThread()
		fn()
		// No UnlockOSThread: exiting locked terminates the thread.
	}()
}

// Start runs fn as an experiment's participant: on a thread of its own
// (Go), or, with plain set, on a plain goroutine (not locked: the Go
// scheduler's to move, as a Go program's goroutines are).
func Start(plain bool, fn func()) {
	if plain {
		go fn()
		return
	}
	Go(fn)
}
