package runenv

import (
	"runtime"
	"runtime/debug"
	"testing"
)

func TestTallyKeepsTheWidestSession(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	var tally Tally
	narrow := tally.End(EnterProcs(1, 1))
	wide := tally.End(EnterProcs(2, 2))
	if runtime.GOMAXPROCS(0) != before {
		t.Fatalf("GOMAXPROCS %d after End, want %d restored", runtime.GOMAXPROCS(0), before)
	}
	if narrow.GOMAXPROCS != 1 || wide.GOMAXPROCS != 2 {
		t.Fatalf("sessions at GOMAXPROCS %d and %d, want 1 and 2", narrow.GOMAXPROCS, wide.GOMAXPROCS)
	}
	rt := tally.Runtime("syscall")
	if rt.GOMAXPROCS != 2 || rt.SyscallMode != "syscall" || rt.GCCycles != narrow.GCCycles+wide.GCCycles {
		t.Errorf("tally %+v: want the widest session (2), syscall, the GC cycles of both", rt)
	}
}

// Collect frees what was dropped (the heap after it is smaller than the
// garbage made before it), leaves the GC off, and its cycle is not counted
// as one that ran inside the run; a runtime.GC not made through Collect is.
func TestCollectFreesAndIsNotCounted(t *testing.T) {
	e := Enter(2)
	defer e.Restore()
	for range 64 {
		sink = append(sink, make([]byte, 1<<20))
	}
	sink = nil
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	e.Collect()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc+32<<20 > before {
		t.Fatalf("heap %d bytes after Collect, %d before: the 64 MiB dropped were not freed", ms.HeapAlloc, before)
	}
	if debug.SetGCPercent(-1) != -1 {
		t.Fatal("Collect turned the GC back on")
	}
	if n := e.Runtime().GCCycles; n != 0 {
		t.Fatalf("GCCycles %d after Collect, want 0", n)
	}
	runtime.GC()
	if n := e.Runtime().GCCycles; n != 1 {
		t.Fatalf("GCCycles %d after a GC outside Collect, want 1", n)
	}
}

// sink holds the test's garbage until it drops it (no escape analysis
// removes the allocations).
var sink [][]byte
