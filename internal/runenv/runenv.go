// Package runenv puts the Go runtime into the state parkbench measures in,
// and records it: GOMAXPROCS high enough that no woken participant waits for
// a P, the garbage collector kept out of the measured window, and how many GC
// cycles ran anyway. Restore undoes every change, also after an interrupt.
package runenv

import (
	"runtime"
	"runtime/debug"

	"github.com/parkbench/parkbench/internal/results"
)

// Env is the runtime state set for a measurement.
type Env struct {
	prevProcs int
	prevGC    int
	gcStart   uint32
	rt        results.Runtime
}

// Enter sets GOMAXPROCS to at least participants+2 (participants, plus the
// main goroutine and slack for the runtime) and turns the GC off after
// collecting once, so the measured window starts with a clean heap.
func Enter(participants int) *Env {
	e := &Env{}
	procs := participants + 2
	if n := runtime.NumCPU(); procs < n {
		procs = n
	}
	e.prevProcs = runtime.GOMAXPROCS(procs)
	runtime.GC()
	e.prevGC = debug.SetGCPercent(-1)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	e.gcStart = ms.NumGC
	e.rt = results.Runtime{
		GOMAXPROCS:   procs,
		GCPercent:    -1,
		LockOSThread: true,
		CgoEnabled:   cgoEnabled,
	}
	return e
}

// Runtime returns the recorded settings, with the GC cycles counted since
// Enter (a GC forced by another goroutine shows up here).
func (e *Env) Runtime() results.Runtime {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rt := e.rt
	rt.GCCycles = ms.NumGC - e.gcStart
	return rt
}

// Restore puts GOMAXPROCS and the GC percent back.
func (e *Env) Restore() {
	runtime.GOMAXPROCS(e.prevProcs)
	debug.SetGCPercent(e.prevGC)
}
