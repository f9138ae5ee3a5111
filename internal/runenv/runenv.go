// Package runenv puts the Go runtime into the state parkbench measures in,
// and records it: GOMAXPROCS high enough that no woken participant waits for
// a P, the garbage collector kept out of the measured window, and how many GC
// cycles ran anyway. Restore undoes every change, also after an interrupt.
package runenv

import (
	"runtime"
	"runtime/debug"

	"github.com/parkbench/parkbench/internal/parkers"
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
//
// The two spare Ps matter beyond the main goroutine: sysmon's retake only
// leaves a P with its goroutine in a syscall while some P is idle (or an M
// spins); with GOMAXPROCS equal to the participants, every wait that spans
// two sysmon ticks loses its P, and the handoff wakes a spinning M
// (docs/scheduler.md).
func Enter(participants int) *Env { return EnterProcs(participants, 0) }

// EnterProcs is Enter with GOMAXPROCS set to procs exactly (procs <= 0: as
// Enter chooses), to measure what the number of Ps does to a wake.
func EnterProcs(participants, procs int) *Env {
	e := &Env{}
	if procs <= 0 {
		procs = participants + 2
		if n := runtime.NumCPU(); procs < n {
			procs = n
		}
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
		ThreadParker: threadParker(),
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

// Collect runs a garbage collection now and leaves the GC off. A run
// calls it between measured windows, where it has dropped what it no longer
// needs (--anatomy: a traced round's records once joined), so that its heap
// is bounded by what one window needs and not by everything the run has
// allocated. The cycle is the run's choice, not one forced into the run: it
// is left out of Runtime's GCCycles.
func (e *Env) Collect() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	n0 := ms.NumGC
	runtime.GC()
	runtime.ReadMemStats(&ms)
	e.gcStart += ms.NumGC - n0
}

// Restore puts GOMAXPROCS and the GC percent back.
func (e *Env) Restore() {
	runtime.GOMAXPROCS(e.prevProcs)
	debug.SetGCPercent(e.prevGC)
}

// threadParker names the platform's thread parker and how its wait deals
// with the Go scheduler (the futex family says; others are just named).
func threadParker() string {
	name := parkers.DefaultName()
	if s := parkers.SchedSetting(name); s != "" {
		return name + ": " + s
	}
	return name
}

// Tally gathers the sessions of one experiment run for its recorded
// runtime: the settings of the session with the most GOMAXPROCS and the GC
// cycles of them all.
type Tally struct {
	widest   results.Runtime
	gcCycles uint32
}

// End reads e's settings, restores e and counts the session in t; it
// returns the session's own settings (a configuration records its
// GOMAXPROCS).
func (t *Tally) End(e *Env) results.Runtime {
	rt := e.Runtime()
	e.Restore()
	t.gcCycles += rt.GCCycles
	if rt.GOMAXPROCS > t.widest.GOMAXPROCS {
		t.widest = rt
	}
	return rt
}

// Runtime is the run's runtime: the widest session's settings with every
// session's GC cycles, the syscalls made in syscallMode.
func (t *Tally) Runtime(syscallMode string) results.Runtime {
	rt := t.widest
	rt.GCCycles, rt.SyscallMode = t.gcCycles, syscallMode
	return rt
}
