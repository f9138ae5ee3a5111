package runenv

import (
	"runtime"
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
